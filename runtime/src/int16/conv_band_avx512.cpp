// The AVX-512 VNNI micro-kernels: 32 filters (two vectors of 16 int32 lanes) x 12 pixels = 24
// accumulators, for both layouts of conv_kernels.hpp. A step broadcasts one pixel's 32-bit channel
// group against the 32 filters' weight groups: vpdpwssd multiplies int16 pairs (32 MACs per
// instruction), vpdpbusd unsigned input bytes by signed weight bytes in quads (64 MACs), and each
// adds its products to the accumulator wrapping modulo 2^32 like arith::mac (the non-saturating
// forms; a u8 x s8 product fits in 16 bits, so the four products are exact before the add).
// Compiled with per-function target attributes; only called when cpuid reports AVX-512 VNNI.
#if defined(__x86_64__) || defined(__i386__)

// GCC 12 warns about its own AVX-512 headers (_mm512_undefined_* in set1/setzero and the unpacks and
// shuffles, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include <cstring>
#include <utility>

#include "int16/conv_kernels.hpp"

#define FPGACNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vnni")))

namespace fpgacnn::int16_detail {

namespace {

// The wide tile: 32 filters x 12 pixels. The narrow one, for layers of at most 16 filters (YOLOv3-tiny's
// first layer: 16 filters of 3 channels at 416x416), 16 filters x 24 pixels: the wide tile computed
// 16 filters of zeros there, half of every instruction.
constexpr int kBlock = 32;
constexpr int kPixels = 12;
constexpr int kNarrowBlock = kAvx512NarrowBlock;
constexpr int kNarrowPixels = 24;
static_assert(kBandPixels % kPixels == 0 && kBandPixels % kNarrowPixels == 0,
              "a band is a whole number of tiles");

// One pixel's channel group (an int16 pair or a quad of bytes) in every 32-bit lane.
template <typename Input>
FPGACNN_AVX512 inline __m512i broadcast_group(const Input* group) {
    int32_t bits;
    std::memcpy(&bits, group, sizeof bits);
    return _mm512_set1_epi32(bits);
}

// One step of one pixel: its broadcast channel group times the 32 filters' weight groups.
template <typename Input>
FPGACNN_AVX512 inline __attribute__((always_inline)) void step(__m512i& acc0, __m512i& acc1, __m512i w0,
                                                               __m512i w1, const Input* group) {
    const __m512i x = broadcast_group(group);
    if constexpr (sizeof(Input) == 1) {
        acc0 = _mm512_dpbusd_epi32(acc0, x, w0);
        acc1 = _mm512_dpbusd_epi32(acc1, x, w1);
    } else {
        acc0 = _mm512_dpwssd_epi32(acc0, w0, x);
        acc1 = _mm512_dpwssd_epi32(acc1, w1, x);
    }
}

// Every accumulator is indexed by a constant of the pack I (no loop over pixels), so the compiler
// keeps all 24 in registers; with a loop it kept a stack copy too and stored it every step.
template <typename Input, typename Weight, std::size_t... I>
FPGACNN_AVX512 void tile_avx512(const BandJob<Input, Weight>& job, const Input* const* origin,
                                int32_t (*by_pixel)[kBlock], std::index_sequence<I...>) {
    static_assert(sizeof(Input) == sizeof(Weight), "int16 x int16 or u8 x s8");
    constexpr int kGroup = 4 / sizeof(Weight);  // channels per 32-bit lane
    const ConvGeometry& g = *job.geometry;
    const __m512i bias0 = _mm512_loadu_si512(job.biases);
    const __m512i bias1 = _mm512_loadu_si512(job.biases + 16);
    __m512i acc0[kPixels] = {(static_cast<void>(I), bias0)...};  // filters 0 to 15 of each pixel
    __m512i acc1[kPixels] = {(static_cast<void>(I), bias1)...};  // filters 16 to 31
    const Weight* w = job.weights;
    for (int s = 0; s < g.steps; ++s, w += kGroup * kBlock) {
        const __m512i w0 = _mm512_loadu_si512(w);
        const __m512i w1 = _mm512_loadu_si512(w + kGroup * 16);
        const std::ptrdiff_t at = g.step_offsets[s];
        (step(acc0[I], acc1[I], w0, w1, origin[I] + at), ...);
    }
    ((_mm512_store_si512(by_pixel[I], acc0[I]), _mm512_store_si512(by_pixel[I] + 16, acc1[I])), ...);
}

// One step of one pixel against 16 filters (the narrow tile).
template <typename Input>
FPGACNN_AVX512 inline __attribute__((always_inline)) void narrow_step(__m512i& acc, __m512i w,
                                                                      const Input* group) {
    const __m512i x = broadcast_group(group);
    if constexpr (sizeof(Input) == 1) {
        acc = _mm512_dpbusd_epi32(acc, x, w);
    } else {
        acc = _mm512_dpwssd_epi32(acc, w, x);
    }
}

template <typename Input, typename Weight, std::size_t... I>
FPGACNN_AVX512 void narrow_tile_avx512(const BandJob<Input, Weight>& job, const Input* const* origin,
                                       int32_t (*by_pixel)[kNarrowBlock], std::index_sequence<I...>) {
    static_assert(sizeof(Input) == sizeof(Weight), "int16 x int16 or u8 x s8");
    constexpr int kGroup = 4 / sizeof(Weight);
    const ConvGeometry& g = *job.geometry;
    const __m512i bias = _mm512_loadu_si512(job.biases);
    __m512i acc[kNarrowPixels] = {(static_cast<void>(I), bias)...};
    const Weight* w = job.weights;
    for (int s = 0; s < g.steps; ++s, w += kGroup * kNarrowBlock) {
        const __m512i weights = _mm512_loadu_si512(w);
        const std::ptrdiff_t at = g.step_offsets[s];
        (narrow_step(acc[I], weights, origin[I] + at), ...);
    }
    (_mm512_store_si512(by_pixel[I], acc[I]), ...);
}

// 16 rows of 16 int32 (row stride `from_stride`) to 16 columns (row stride `to_stride`): 4 x 4
// transposes within 128-bit lanes, then two rounds of lane shuffles.
FPGACNN_AVX512 void transpose16x16(const int32_t* from, std::ptrdiff_t from_stride, int32_t* to,
                                   std::ptrdiff_t to_stride) {
    __m512i r[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_si512(from + i * from_stride);
    __m512i t[16];
    for (int i = 0; i < 16; i += 4) {
        const __m512i lo01 = _mm512_unpacklo_epi32(r[i], r[i + 1]);
        const __m512i hi01 = _mm512_unpackhi_epi32(r[i], r[i + 1]);
        const __m512i lo23 = _mm512_unpacklo_epi32(r[i + 2], r[i + 3]);
        const __m512i hi23 = _mm512_unpackhi_epi32(r[i + 2], r[i + 3]);
        // t[i + k], lane L: column 4 L + k of rows i .. i + 3.
        t[i] = _mm512_unpacklo_epi64(lo01, lo23);
        t[i + 1] = _mm512_unpackhi_epi64(lo01, lo23);
        t[i + 2] = _mm512_unpacklo_epi64(hi01, hi23);
        t[i + 3] = _mm512_unpackhi_epi64(hi01, hi23);
    }
    for (int k = 0; k < 4; ++k) {
        // Column 4 L + k gathers lane L of t[k], t[4 + k], t[8 + k], t[12 + k].
        const __m512i even01 = _mm512_shuffle_i32x4(t[k], t[4 + k], _MM_SHUFFLE(2, 0, 2, 0));
        const __m512i odd01 = _mm512_shuffle_i32x4(t[k], t[4 + k], _MM_SHUFFLE(3, 1, 3, 1));
        const __m512i even23 = _mm512_shuffle_i32x4(t[8 + k], t[12 + k], _MM_SHUFFLE(2, 0, 2, 0));
        const __m512i odd23 = _mm512_shuffle_i32x4(t[8 + k], t[12 + k], _MM_SHUFFLE(3, 1, 3, 1));
        _mm512_storeu_si512(to + k * to_stride,
                            _mm512_shuffle_i32x4(even01, even23, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm512_storeu_si512(to + (4 + k) * to_stride,
                            _mm512_shuffle_i32x4(odd01, odd23, _MM_SHUFFLE(2, 0, 2, 0)));
        _mm512_storeu_si512(to + (8 + k) * to_stride,
                            _mm512_shuffle_i32x4(even01, even23, _MM_SHUFFLE(3, 1, 3, 1)));
        _mm512_storeu_si512(to + (12 + k) * to_stride,
                            _mm512_shuffle_i32x4(odd01, odd23, _MM_SHUFFLE(3, 1, 3, 1)));
    }
}

template <bool Narrow, typename Input, typename Weight>
FPGACNN_AVX512 void band_avx512(const BandJob<Input, Weight>& job) {
    constexpr int kTileBlock = Narrow ? kNarrowBlock : kBlock;
    constexpr int kTilePixels = Narrow ? kNarrowPixels : kPixels;
    band_by_pixel<kTilePixels, kTileBlock, 16>(
        job,
        [&job](const Input* const* origin, int32_t(*rows)[kTileBlock]) FPGACNN_AVX512 {
            if constexpr (Narrow) {
                narrow_tile_avx512(job, origin, rows, std::make_index_sequence<kTilePixels>());
            } else {
                tile_avx512(job, origin, rows, std::make_index_sequence<kTilePixels>());
            }
        },
        transpose16x16,
        [&job](const int32_t* row, int16_t* out, std::size_t count) FPGACNN_AVX512 {
            requantize_avx512(row, out, count, job.output_shift, job.activation, job.output_bits);
        });
}

}  // namespace

FPGACNN_AVX512 void conv_band_avx512vnni(const ConvBandJob& job) { band_avx512<false>(job); }

FPGACNN_AVX512 void conv_band_avx512vnni_u8s8(const ConvBandJobU8& job) { band_avx512<false>(job); }

FPGACNN_AVX512 void conv_band_avx512vnni_narrow(const ConvBandJob& job) { band_avx512<true>(job); }

FPGACNN_AVX512 void conv_band_avx512vnni_u8s8_narrow(const ConvBandJobU8& job) { band_avx512<true>(job); }

}  // namespace fpgacnn::int16_detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif

// The AVX-512 VNNI micro-kernel: 32 filters (two vectors of 16 int32 lanes) x 12 pixels = 24
// accumulators. vpdpwssd multiplies the weight pairs by the broadcast input pair and adds both
// products to the accumulator, wrapping modulo 2^32 like arith::mac (the non-saturating form).
// Compiled with per-function target attributes; only called when cpuid reports AVX-512 VNNI.
// UNTESTED on the development machine (no AVX-512 there).
#if defined(__x86_64__) || defined(__i386__)

// GCC 12 warns about its own AVX-512 headers (_mm512_undefined_* in set1/setzero, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstring>

#include "int16/conv_kernels.hpp"

#define FPGACNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vnni")))

namespace fpgacnn::int16_detail {

namespace {

constexpr int kBlock = 32;
constexpr int kPixels = 12;
static_assert(kBandPixels % kPixels == 0, "a band is a whole number of tiles");

FPGACNN_AVX512 inline __m512i broadcast_pair(const int16_t* pair) {
    int32_t bits;
    std::memcpy(&bits, pair, sizeof bits);
    return _mm512_set1_epi32(bits);
}

FPGACNN_AVX512 void tile_avx512(const ConvBandJob& job, const int16_t* const origin[kPixels],
                                int32_t (*tile)[kBandPixels], int t0) {
    const ConvGeometry& g = *job.geometry;
    const __m512i bias0 = _mm512_loadu_si512(job.biases);
    const __m512i bias1 = _mm512_loadu_si512(job.biases + 16);
    __m512i acc[kPixels][2];
    for (int i = 0; i < kPixels; ++i) {
        acc[i][0] = bias0;
        acc[i][1] = bias1;
    }
    const int16_t* w = job.weights;
    for (int s = 0; s < g.steps; ++s, w += 2 * kBlock) {
        const __m512i w0 = _mm512_loadu_si512(w);
        const __m512i w1 = _mm512_loadu_si512(w + 32);
        const std::ptrdiff_t at = g.step_offsets[s];
        // Fully unrolled so the 24 accumulators stay in registers.
#pragma GCC unroll 12
        for (int i = 0; i < kPixels; ++i) {
            const __m512i x = broadcast_pair(origin[i] + at);
            acc[i][0] = _mm512_dpwssd_epi32(acc[i][0], w0, x);
            acc[i][1] = _mm512_dpwssd_epi32(acc[i][1], w1, x);
        }
    }
    alignas(64) int32_t columns[kPixels][kBlock];
    for (int i = 0; i < kPixels; ++i) {
        _mm512_store_si512(columns[i], acc[i][0]);
        _mm512_store_si512(columns[i] + 16, acc[i][1]);
    }
    for (int m = 0; m < kBlock; ++m) {
        for (int i = 0; i < kPixels; ++i) tile[m][t0 + i] = columns[i][m];
    }
}

}  // namespace

FPGACNN_AVX512 void conv_band_avx512vnni(const ConvBandJob& job) {
    const ConvGeometry& g = *job.geometry;
    alignas(64) int32_t tile[kBlock][kBandPixels];
    PixelWalker walker(g, job.packed_input, job.first_pixel);
    for (int t0 = 0; t0 < job.pixel_count; t0 += kPixels) {
        const int16_t* origin[kPixels];
        walker.take(origin, job.pixel_count - t0);
        tile_avx512(job, origin, tile, t0);
    }
    for (int m = 0; m < job.filter_count; ++m) {
        int16_t* out =
            job.output + static_cast<std::ptrdiff_t>(job.first_filter + m) * g.out_pixels + job.first_pixel;
        requantize_avx512(tile[m], out, static_cast<std::size_t>(job.pixel_count), job.output_shift,
                          job.leaky);
        narrow_to_width(out, static_cast<std::size_t>(job.pixel_count), job.output_bits);
    }
}

}  // namespace fpgacnn::int16_detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif

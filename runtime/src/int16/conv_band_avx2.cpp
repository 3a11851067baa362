// The AVX2 micro-kernel: 16 filters (two vectors of 8 int32 lanes) x 6 pixels = 12 accumulators.
// One step takes one channel pair of one tap: vpmaddwd multiplies the 8 filters' weight pairs by
// the pixel's broadcast input pair and adds each pair (int32 wrap, like arith::mac; the only
// overflow case, 2 x (-32768)^2, wraps to -2^31 as the contract's modulo-2^32 sum does), and
// vpaddd accumulates with the same wrap-around.
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <cstring>

#include "int16/conv_kernels.hpp"

#define FPGACNN_AVX2 __attribute__((target("avx2")))

namespace fpgacnn::int16_detail {

namespace {

constexpr int kBlock = 16;
constexpr int kPixels = 6;
static_assert(kBandPixels % kPixels == 0, "a band is a whole number of tiles");

FPGACNN_AVX2 inline __m256i broadcast_pair(const int16_t* pair) {
    int32_t bits;
    std::memcpy(&bits, pair, sizeof bits);
    return _mm256_set1_epi32(bits);
}

FPGACNN_AVX2 inline __m256i load(const int32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

FPGACNN_AVX2 inline __m256i load(const int16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

FPGACNN_AVX2 inline void step(__m256i& acc0, __m256i& acc1, __m256i w0, __m256i w1, const int16_t* pair) {
    const __m256i x = broadcast_pair(pair);
    acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(w0, x));
    acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(w1, x));
}

// Accumulates kPixels pixels x kBlock filters into rows [0, kPixels) of by_pixel.
FPGACNN_AVX2 void tile_avx2(const ConvBandJob& job, const int16_t* const origin[kPixels],
                            int32_t (*by_pixel)[kBlock]) {
    const ConvGeometry& g = *job.geometry;
    const __m256i bias0 = load(job.biases);
    const __m256i bias1 = load(job.biases + 8);
    __m256i a00 = bias0, a01 = bias1, a10 = bias0, a11 = bias1, a20 = bias0, a21 = bias1;
    __m256i a30 = bias0, a31 = bias1, a40 = bias0, a41 = bias1, a50 = bias0, a51 = bias1;
    const int16_t* w = job.weights;
    const int16_t* const x0 = origin[0];
    const int16_t* const x1 = origin[1];
    const int16_t* const x2 = origin[2];
    const int16_t* const x3 = origin[3];
    const int16_t* const x4 = origin[4];
    const int16_t* const x5 = origin[5];
    const auto accumulate = [&](std::ptrdiff_t at) FPGACNN_AVX2 {
        const __m256i w0 = load(w);
        const __m256i w1 = load(w + 16);
        w += 2 * kBlock;
        step(a00, a01, w0, w1, x0 + at);
        step(a10, a11, w0, w1, x1 + at);
        step(a20, a21, w0, w1, x2 + at);
        step(a30, a31, w0, w1, x3 + at);
        step(a40, a41, w0, w1, x4 + at);
        step(a50, a51, w0, w1, x5 + at);
    };
    for (int s = 0; s < g.steps; ++s) accumulate(g.step_offsets[s]);
    const __m256i results[kPixels][2] = {{a00, a01}, {a10, a11}, {a20, a21},
                                         {a30, a31}, {a40, a41}, {a50, a51}};
    for (int i = 0; i < kPixels; ++i) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(by_pixel[i]), results[i][0]);
        _mm256_store_si256(reinterpret_cast<__m256i*>(by_pixel[i] + 8), results[i][1]);
    }
}

// 8 rows of 8 int32 (row stride `from_stride`) to 8 columns (row stride `to_stride`).
FPGACNN_AVX2 void transpose8x8(const int32_t* from, std::ptrdiff_t from_stride, int32_t* to,
                               std::ptrdiff_t to_stride) {
    __m256i r[8];
    for (int i = 0; i < 8; ++i) r[i] = load(from + i * from_stride);
    const __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]);
    const __m256i t1 = _mm256_unpackhi_epi32(r[0], r[1]);
    const __m256i t2 = _mm256_unpacklo_epi32(r[2], r[3]);
    const __m256i t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    const __m256i t4 = _mm256_unpacklo_epi32(r[4], r[5]);
    const __m256i t5 = _mm256_unpackhi_epi32(r[4], r[5]);
    const __m256i t6 = _mm256_unpacklo_epi32(r[6], r[7]);
    const __m256i t7 = _mm256_unpackhi_epi32(r[6], r[7]);
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2);
    const __m256i u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3);
    const __m256i u3 = _mm256_unpackhi_epi64(t1, t3);
    const __m256i u4 = _mm256_unpacklo_epi64(t4, t6);
    const __m256i u5 = _mm256_unpackhi_epi64(t4, t6);
    const __m256i u6 = _mm256_unpacklo_epi64(t5, t7);
    const __m256i u7 = _mm256_unpackhi_epi64(t5, t7);
    const __m256i columns[8] = {
        _mm256_permute2x128_si256(u0, u4, 0x20), _mm256_permute2x128_si256(u1, u5, 0x20),
        _mm256_permute2x128_si256(u2, u6, 0x20), _mm256_permute2x128_si256(u3, u7, 0x20),
        _mm256_permute2x128_si256(u0, u4, 0x31), _mm256_permute2x128_si256(u1, u5, 0x31),
        _mm256_permute2x128_si256(u2, u6, 0x31), _mm256_permute2x128_si256(u3, u7, 0x31)};
    for (int i = 0; i < 8; ++i)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i * to_stride), columns[i]);
}

}  // namespace

FPGACNN_AVX2 void conv_band_avx2(const ConvBandJob& job) {
    band_by_pixel<kPixels, kBlock, 8>(
        job,
        [&job](const int16_t* const* origin, int32_t(*rows)[kBlock])
            FPGACNN_AVX2 { tile_avx2(job, origin, rows); },
        transpose8x8,
        [&job](const int32_t* row, int16_t* out, std::size_t count) FPGACNN_AVX2 {
            requantize_avx2(row, out, count, job.output_shift, job.activation);
            narrow_to_width(out, count, job.output_bits);
        });
}

}  // namespace fpgacnn::int16_detail

#endif

// The AVX2 input packing row: CHW -> channel pairs per pixel is a transpose; per 16 channels x 8
// pixels, unpacking two channel rows gives 8 pairs as int32, and an 8x8 int32 transpose puts each
// pixel's 8 pairs side by side. Pure data movement: identical bytes to the scalar row.
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include "int16/input_packing.hpp"

#define FPGACNN_AVX2 __attribute__((target("avx2")))

namespace fpgacnn::int16_detail {

namespace {

FPGACNN_AVX2 inline __m256i pairs_of(const int16_t* even, const int16_t* odd) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(even));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(odd));
    return _mm256_set_m128i(_mm_unpackhi_epi16(a, b), _mm_unpacklo_epi16(a, b));
}

}  // namespace

FPGACNN_AVX2 void pack_row_avx2(const int16_t* const* channel_rows, int channels, int width, int16_t* first,
                                std::ptrdiff_t channel_stride) {
    const int full_channels = channels / 16 * 16;
    const int full_width = width / 8 * 8;
    for (int c = 0; c < full_channels; c += 16) {
        for (int x = 0; x < full_width; x += 8) {
            __m256i r[8];
            for (int i = 0; i < 8; ++i)
                r[i] = pairs_of(channel_rows[c + 2 * i] + x, channel_rows[c + 2 * i + 1] + x);
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
            const __m256i pixels[8] = {
                _mm256_permute2x128_si256(u0, u4, 0x20), _mm256_permute2x128_si256(u1, u5, 0x20),
                _mm256_permute2x128_si256(u2, u6, 0x20), _mm256_permute2x128_si256(u3, u7, 0x20),
                _mm256_permute2x128_si256(u0, u4, 0x31), _mm256_permute2x128_si256(u1, u5, 0x31),
                _mm256_permute2x128_si256(u2, u6, 0x31), _mm256_permute2x128_si256(u3, u7, 0x31)};
            for (int i = 0; i < 8; ++i) {
                _mm256_storeu_si256(reinterpret_cast<__m256i*>(first + (x + i) * channel_stride + c),
                                    pixels[i]);
            }
        }
        for (int x = full_width; x < width; ++x) {
            for (int k = c; k < c + 16; ++k) first[x * channel_stride + k] = channel_rows[k][x];
        }
    }
    for (int k = full_channels; k < channels; ++k) {
        for (int x = 0; x < width; ++x) first[x * channel_stride + k] = channel_rows[k][x];
    }
}

}  // namespace fpgacnn::int16_detail

#endif

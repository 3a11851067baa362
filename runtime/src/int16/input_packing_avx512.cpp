// The AVX-512 input packing row of the 8-bit layout (conv_kernels.hpp): CHW int16 values in
// [-128, 127] -> per pixel the bytes x + 128, channels in quads. Per 16 channels x 16 pixels: each
// quad's four channel rows become one dword per pixel (low bytes joined into words, vpermw pairs
// the words), and a 4 x 4 dword transpose per 128-bit lane gives each pixel its 16 channels, one
// 16-byte store. A row's last width % 16 pixels take the same path with masked loads and go through
// a small buffer (13 x 13 maps would otherwise be packed a byte at a time). Pure data movement: the
// same bytes as x + 128 stored one by one.
#if defined(__x86_64__) || defined(__i386__)

// GCC 12 warns about its own AVX-512 headers (_mm512_undefined_* in set1/setzero, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "int16/input_packing.hpp"

#define FPGACNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

namespace fpgacnn::int16_detail {

namespace {

// Pixels x .. x + 15 of two channel rows (words 0-15 and 16-31); pixels past `valid` read as 0.
FPGACNN_AVX512 inline __m512i two_rows(const int16_t* low, const int16_t* high, __mmask16 valid) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_maskz_loadu_epi16(valid, low)),
                              _mm256_maskz_loadu_epi16(valid, high), 1);
}

// Channels c .. c + 3 of 16 pixels: dword p holds pixel p's four bytes x + 128.
FPGACNN_AVX512 inline __m512i quad_of(const int16_t* const* rows, int x, __mmask16 valid) {
    // Words 0-15: (c, c + 1) of pixels 0-15; words 16-31: (c + 2, c + 3).
    const __m512i low_bytes = two_rows(rows[0] + x, rows[2] + x, valid);
    const __m512i high_bytes = two_rows(rows[1] + x, rows[3] + x, valid);
    const __m512i words = _mm512_or_si512(_mm512_and_si512(low_bytes, _mm512_set1_epi16(0xFF)),
                                          _mm512_slli_epi16(high_bytes, 8));
    // Dword p = word p | word 16 + p << 16.
    const __m512i order = _mm512_set_epi16(31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23,
                                           7, 22, 6, 21, 5, 20, 4, 19, 3, 18, 2, 17, 1, 16, 0);
    // x + 128 in a byte is x with its top bit flipped.
    return _mm512_xor_si512(_mm512_permutexvar_epi16(order, words),
                            _mm512_set1_epi8(static_cast<char>(0x80)));
}

// Lane L of `pixels` (pixel 4 L + k of the 16) to its packed pixel.
FPGACNN_AVX512 inline void store_lanes(__m512i pixels, uint8_t* pixel0, std::ptrdiff_t stride) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pixel0), _mm512_castsi512_si128(pixels));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pixel0 + 4 * stride), _mm512_extracti32x4_epi32(pixels, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pixel0 + 8 * stride), _mm512_extracti32x4_epi32(pixels, 2));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pixel0 + 12 * stride), _mm512_extracti32x4_epi32(pixels, 3));
}

// Channels c .. c + 15 of pixels x .. x + 15 (those before `valid`) to their packed pixels.
FPGACNN_AVX512 inline void pack_16x16(const int16_t* const* rows, int x, __mmask16 valid, uint8_t* pixel,
                                      std::ptrdiff_t stride) {
    const __m512i q0 = quad_of(rows, x, valid);
    const __m512i q1 = quad_of(rows + 4, x, valid);
    const __m512i q2 = quad_of(rows + 8, x, valid);
    const __m512i q3 = quad_of(rows + 12, x, valid);
    // Per 128-bit lane (pixels 4 L .. 4 L + 3) a 4 x 4 transpose: pixel k's four quads.
    const __m512i t0 = _mm512_unpacklo_epi32(q0, q1);
    const __m512i t1 = _mm512_unpackhi_epi32(q0, q1);
    const __m512i t2 = _mm512_unpacklo_epi32(q2, q3);
    const __m512i t3 = _mm512_unpackhi_epi32(q2, q3);
    store_lanes(_mm512_unpacklo_epi64(t0, t2), pixel, stride);
    store_lanes(_mm512_unpackhi_epi64(t0, t2), pixel + stride, stride);
    store_lanes(_mm512_unpacklo_epi64(t1, t3), pixel + 2 * stride, stride);
    store_lanes(_mm512_unpackhi_epi64(t1, t3), pixel + 3 * stride, stride);
}

}  // namespace

FPGACNN_AVX512 void pack_row_u8_avx512(const int16_t* const* channel_rows, int channels, int width,
                                       uint8_t* first, std::ptrdiff_t channel_stride) {
    const int full_channels = channels / 16 * 16;
    const int full_width = width / 16 * 16;
    const int tail = width - full_width;
    const auto tail_mask = static_cast<__mmask16>((1u << tail) - 1);
    for (int c = 0; c < full_channels; c += 16) {
        for (int x = 0; x < full_width; x += 16)
            pack_16x16(channel_rows + c, x, 0xFFFF, first + x * channel_stride + c, channel_stride);
        if (tail > 0) {
            // The packed row may end (or another thread's row begin) right after the last pixel.
            alignas(64) uint8_t pixels[16][16];
            pack_16x16(channel_rows + c, full_width, tail_mask, &pixels[0][0], 16);
            for (int p = 0; p < tail; ++p)
                _mm_storeu_si128(reinterpret_cast<__m128i*>(first + (full_width + p) * channel_stride + c),
                                 _mm_load_si128(reinterpret_cast<const __m128i*>(pixels[p])));
        }
    }
    const auto store = [&](int k, int x) {
        first[x * channel_stride + k] = static_cast<uint8_t>(channel_rows[k][x] + 128);
    };
    for (int k = full_channels; k < channels; ++k) {
        for (int x = 0; x < width; ++x) store(k, x);
    }
}

}  // namespace fpgacnn::int16_detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif

// quantize_tensor's loop with AVX-512 (F, BW, VL), 8 values a step: the same double arithmetic as
// arith::quantize_scaled. The product of a float and a power of two is exact in double, so the one
// rounding is the + 0.5's whether or not the compiler fuses the multiply and the add; floor, then
// the clamp to int16 (equal to the scalar's clamp before its truncation, the bounds being integers),
// then the width's clamp; NaN gives 0. Only called when cpuid reports AVX-512.
#if defined(__x86_64__) || defined(__i386__)

// GCC 12 warns about its own AVX-512 headers (_mm512_undefined_* in set1/setzero, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "quant/tensor_convert_avx512.hpp"

#define FPGACNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

namespace fpgacnn::detail {

FPGACNN_AVX512 void quantize_tensor_avx512(const float* values, std::size_t count, double scale, int16_t* out,
                                           int bits) {
    const __m512d scale8 = _mm512_set1_pd(scale);
    const __m512d half = _mm512_set1_pd(0.5);
    const __m512d high = _mm512_set1_pd(32767.0);
    const __m512d low = _mm512_set1_pd(-32768.0);
    const __m256i width_high = _mm256_set1_epi32(arith::saturate_to_width(32767, bits));
    const __m256i width_low = _mm256_set1_epi32(arith::saturate_to_width(-32768, bits));
    const auto convert = [&](__m256 v) FPGACNN_AVX512 {
        const __m512d wide = _mm512_cvtps_pd(v);
        const __m512d scaled = _mm512_add_pd(_mm512_mul_pd(wide, scale8), half);
        const __m512d floored = _mm512_roundscale_pd(scaled, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m512d clamped = _mm512_min_pd(_mm512_max_pd(floored, low), high);
        // NaN: 0 (max/min would pass it on to the conversion).
        const __mmask8 number = _mm512_cmp_pd_mask(wide, wide, _CMP_ORD_Q);
        const __m256i ints = _mm512_maskz_cvttpd_epi32(number, clamped);
        return _mm256_cvtepi32_epi16(_mm256_max_epi32(_mm256_min_epi32(ints, width_high), width_low));
    };
    std::size_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), convert(_mm256_loadu_ps(values + i)));
    if (i < count) {
        const auto tail = static_cast<__mmask8>((1u << (count - i)) - 1);
        _mm_mask_storeu_epi16(out + i, tail, convert(_mm256_maskz_loadu_ps(tail, values + i)));
    }
}

}  // namespace fpgacnn::detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif

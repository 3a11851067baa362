// The conv epilogue with AVX-512 (F + BW), the same arithmetic as requantize_avx2.cpp with
// native 64-bit arithmetic shifts and mask registers, and the output width's clamp folded in.
// Only called when cpuid reports AVX-512.
#if defined(__x86_64__) || defined(__i386__)

// GCC 12 warns about its own AVX-512 headers (_mm512_undefined_* in set1/setzero, GCC bug 105593).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16/conv_kernels.hpp"

#define FPGACNN_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

namespace fpgacnn::int16_detail {

namespace {

struct Avx512Requantizer {
    int shift;
    bool leaky;
    bool relu;  // negative lanes clamped at 0 first, then linear gives 0
    __m128i right;
    __m128i left;
    __m512i low_mask;
    __m512i half_minus_1;
    __m128i leaky_right;
    __m512i leaky_half;

    FPGACNN_AVX512 Avx512Requantizer(int s, uint32_t activation)
        : shift(s), leaky(activation == arith::kActivationLeaky), relu(activation == arith::kActivationRelu) {
        right = _mm_cvtsi32_si128(s > 0 ? s : 0);
        left = _mm_cvtsi32_si128(s < 0 ? -s : 0);
        const uint32_t mask = s > 0 ? static_cast<uint32_t>((uint64_t{1} << s) - 1) : 0;
        low_mask = _mm512_set1_epi32(static_cast<int32_t>(mask));
        half_minus_1 = _mm512_set1_epi32(s > 0 ? static_cast<int32_t>(mask >> 1) : 0);
        const int t = arith::kLeakyShift + s;
        leaky_right = _mm_cvtsi32_si128(t);
        leaky_half = _mm512_set1_epi64(1LL << (t - 1));
    }

    FPGACNN_AVX512 __m512i linear(__m512i acc) const {
        if (shift > 0) {
            const __m512i q = _mm512_sra_epi32(acc, right);
            const __mmask16 round_up = _mm512_cmpgt_epi32_mask(_mm512_and_si512(acc, low_mask), half_minus_1);
            return _mm512_mask_add_epi32(q, round_up, q, _mm512_set1_epi32(1));
        }
        if (shift < 0) {
            const __m512i clamped =
                _mm512_max_epi32(_mm512_min_epi32(acc, _mm512_set1_epi32(32767)), _mm512_set1_epi32(-32768));
            return _mm512_sll_epi32(clamped, left);
        }
        return acc;
    }

    FPGACNN_AVX512 __m512i leaky_negative64(__m512i v32) const {
        const __m512i product = _mm512_mul_epi32(v32, _mm512_set1_epi32(arith::kLeakyMultiplier));
        const __m512i shifted = _mm512_sra_epi64(_mm512_add_epi64(product, leaky_half), leaky_right);
        return _mm512_max_epi64(shifted, _mm512_set1_epi64(-32768));
    }

    FPGACNN_AVX512 __m512i apply(__m512i acc) const {
        if (relu) return linear(_mm512_max_epi32(acc, _mm512_setzero_si512()));
        const __m512i result = linear(acc);
        if (!leaky) return result;
        const __mmask16 negative = _mm512_cmplt_epi32_mask(acc, _mm512_setzero_si512());
        if (negative == 0) return result;
        const __m512i even = leaky_negative64(acc);
        const __m512i odd = leaky_negative64(_mm512_srli_epi64(acc, 32));
        const __m512i leaky_result = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
        return _mm512_mask_blend_epi32(negative, result, leaky_result);
    }
};

}  // namespace

FPGACNN_AVX512 void requantize_avx512(const int32_t* acc, int16_t* out, std::size_t n, int shift,
                                      uint32_t activation, int bits) {
    const Avx512Requantizer requantizer(shift, activation);
    // Clamping to the width first and then saturating to int16 is narrow_to_width after the 16-bit result.
    const __m512i high = _mm512_set1_epi32(arith::saturate_to_width(32767, bits));
    const __m512i low = _mm512_set1_epi32(arith::saturate_to_width(-32768, bits));
    const auto narrowed = [&](__m512i sums) FPGACNN_AVX512 {
        const __m512i r = requantizer.apply(sums);
        return _mm512_cvtsepi32_epi16(_mm512_max_epi32(_mm512_min_epi32(r, high), low));
    };
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), narrowed(_mm512_loadu_si512(acc + i)));
    if (i < n) {
        const __mmask16 tail = static_cast<__mmask16>((1u << (n - i)) - 1);
        _mm256_mask_storeu_epi16(out + i, tail, narrowed(_mm512_maskz_loadu_epi32(tail, acc + i)));
    }
}

}  // namespace fpgacnn::int16_detail

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#endif

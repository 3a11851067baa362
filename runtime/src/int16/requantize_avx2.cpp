// The conv epilogue with AVX2, bit-identical to arith::requantize (tests check every edge).
// Linear: round-half-up shift in int32 without the overflow of adding 2^(s-1): with
// acc = q * 2^s + r (0 <= r < 2^s), floor(acc / 2^s + 1/2) = q + (r >= 2^(s-1)).
// relu lanes are clamped at 0 first (then linear gives 0 for them).
// Leaky negative lanes need acc * 13107 in 64 bits; AVX2 has no 64-bit arithmetic shift, so the
// product is offset by 2^62 (a multiple of 2^t) to shift it as unsigned, and the offset's
// 2^(62-t) is taken off after. Lanes are first clamped at the accumulator below which the leaky
// output saturates anyway, so every 64-bit result fits int32 and packs does the saturation.
#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#include <climits>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16/conv_kernels.hpp"

#define FPGACNN_AVX2 __attribute__((target("avx2")))

namespace fpgacnn::int16_detail {

namespace {

struct Avx2Requantizer {
    int shift;
    bool leaky;
    bool relu;
    __m128i right;         // shift count for s > 0
    __m128i left;          // shift count for s < 0
    __m256i low_mask;      // 2^s - 1
    __m256i half_minus_1;  // 2^(s-1) - 1
    __m128i leaky_right;   // t = 17 + s
    __m256i leaky_add;     // 2^(t-1) + 2^62, 64-bit lanes
    __m256i leaky_sub;     // 2^(62-t), 64-bit lanes
    __m256i leaky_floor;   // accumulators below this saturate to -32768

    FPGACNN_AVX2 Avx2Requantizer(int s, uint32_t activation)
        : shift(s), leaky(activation == arith::kActivationLeaky), relu(activation == arith::kActivationRelu) {
        right = _mm_cvtsi32_si128(s > 0 ? s : 0);
        left = _mm_cvtsi32_si128(s < 0 ? -s : 0);
        const uint32_t mask = s > 0 ? static_cast<uint32_t>((uint64_t{1} << s) - 1) : 0;
        low_mask = _mm256_set1_epi32(static_cast<int32_t>(mask));
        half_minus_1 = _mm256_set1_epi32(s > 0 ? static_cast<int32_t>(mask >> 1) : 0);
        const int t = arith::kLeakyShift + s;
        leaky_right = _mm_cvtsi32_si128(t);
        leaky_add = _mm256_set1_epi64x((1LL << (t - 1)) + (1LL << 62));
        leaky_sub = _mm256_set1_epi64x(1LL << (62 - t));
        leaky_floor = _mm256_set1_epi32(saturating_accumulator(s));
    }

    // The largest accumulator whose leaky output is <= -32768 (or INT32_MIN if none is), found
    // with the contract's own arithmetic.
    static int32_t saturating_accumulator(int s) {
        const int t = arith::kLeakyShift + s;
        const int64_t numerator = -32767 * (int64_t{1} << t) - (int64_t{1} << (t - 1));
        int64_t guess = numerator / arith::kLeakyMultiplier;  // within a few units of the answer
        const auto saturates = [t](int64_t acc) {
            return arith::round_shift(acc * arith::kLeakyMultiplier, t) <= -32768;
        };
        while (!saturates(guess)) --guess;
        while (saturates(guess + 1)) ++guess;
        return guess < INT32_MIN ? INT32_MIN : static_cast<int32_t>(guess);
    }

    FPGACNN_AVX2 __m256i linear(__m256i acc) const {
        if (shift > 0) {
            const __m256i q = _mm256_sra_epi32(acc, right);
            const __m256i r = _mm256_and_si256(acc, low_mask);
            const __m256i round_up = _mm256_cmpgt_epi32(r, half_minus_1);  // -1 where r >= 2^(s-1)
            return _mm256_sub_epi32(q, round_up);
        }
        if (shift < 0) {
            // Clamping first keeps the shift inside int32 and saturates the same way.
            const __m256i clamped =
                _mm256_max_epi32(_mm256_min_epi32(acc, _mm256_set1_epi32(32767)), _mm256_set1_epi32(-32768));
            return _mm256_sll_epi32(clamped, left);
        }
        return acc;
    }

    // round_shift(v * 13107, 17 + s) for the low 32 bits of every 64-bit lane (v < 0, v >= leaky_floor).
    FPGACNN_AVX2 __m256i leaky_negative64(__m256i v32) const {
        const __m256i product = _mm256_mul_epi32(v32, _mm256_set1_epi32(arith::kLeakyMultiplier));
        return _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(product, leaky_add), leaky_right),
                                leaky_sub);
    }

    // Exact int32 results that only still need the int16 saturation of packs.
    FPGACNN_AVX2 __m256i apply(__m256i acc) const {
        if (relu) return linear(_mm256_max_epi32(acc, _mm256_setzero_si256()));
        const __m256i result = linear(acc);
        if (!leaky) return result;
        const __m256i negative = _mm256_cmpgt_epi32(_mm256_setzero_si256(), acc);
        if (_mm256_testz_si256(negative, negative)) return result;
        const __m256i clamped = _mm256_max_epi32(acc, leaky_floor);
        const __m256i even = leaky_negative64(clamped);
        const __m256i odd = leaky_negative64(_mm256_srli_epi64(clamped, 32));
        const __m256i leaky_result = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
        return _mm256_blendv_epi8(result, leaky_result, negative);
    }
};

}  // namespace

FPGACNN_AVX2 void requantize_avx2(const int32_t* acc, int16_t* out, std::size_t n, int shift,
                                  uint32_t activation) {
    const Avx2Requantizer requantizer(shift, activation);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i a = requantizer.apply(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i)));
        const __m256i b =
            requantizer.apply(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + i + 8)));
        // packs saturates to int16 (the contract's saturate16) but interleaves 128-bit halves.
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), packed);
    }
    if (i < n) {
        // The tail goes through the same vector code on a zero-filled copy.
        alignas(32) int32_t in_tail[16] = {};
        alignas(32) int16_t out_tail[16];
        for (std::size_t j = i; j < n; ++j) in_tail[j - i] = acc[j];
        const __m256i a = requantizer.apply(_mm256_load_si256(reinterpret_cast<const __m256i*>(in_tail)));
        const __m256i b = requantizer.apply(_mm256_load_si256(reinterpret_cast<const __m256i*>(in_tail + 8)));
        _mm256_store_si256(reinterpret_cast<__m256i*>(out_tail),
                           _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xD8));
        for (std::size_t j = i; j < n; ++j) out[j] = out_tail[j - i];
    }
}

}  // namespace fpgacnn::int16_detail

#endif

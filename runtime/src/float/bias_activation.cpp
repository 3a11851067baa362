#include "float/bias_activation.hpp"

#include "float/darknet_math.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fpgacnn::detail {

namespace {

#if defined(__SSE2__)
// Four values at a time. The compiler does not vectorize the float -> double -> float leaky on
// its own, and scalar it costs more than the memory traffic of this pass.
std::size_t leaky_sse2(float* values, std::size_t count, float bias) {
    const __m128 bias4 = _mm_set1_ps(bias);
    const __m128 zero = _mm_setzero_ps();
    const __m128d tenth = _mm_set1_pd(0.1);
    std::size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        const __m128 x = _mm_add_ps(_mm_loadu_ps(values + i), bias4);
        const __m128d low = _mm_mul_pd(_mm_cvtps_pd(x), tenth);
        const __m128d high = _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(x, x)), tenth);
        const __m128 scaled = _mm_movelh_ps(_mm_cvtpd_ps(low), _mm_cvtpd_ps(high));
        const __m128 positive = _mm_cmpgt_ps(x, zero);
        _mm_storeu_ps(values + i, _mm_or_ps(_mm_and_ps(positive, x), _mm_andnot_ps(positive, scaled)));
    }
    return i;
}
#endif

}  // namespace

void add_bias_and_activate(float* values, std::size_t count, float bias, Activation activation) {
    if (activation == Activation::Linear) {
        for (std::size_t i = 0; i < count; ++i) values[i] += bias;
        return;
    }
    std::size_t i = 0;
    if (activation != Activation::Leaky) {
        for (; i < count; ++i) values[i] = darknet_activate(values[i] + bias, activation);
        return;
    }
#if defined(__SSE2__)
    i = leaky_sse2(values, count, bias);
#endif
    for (; i < count; ++i) values[i] = darknet_leaky(values[i] + bias);
}

}  // namespace fpgacnn::detail

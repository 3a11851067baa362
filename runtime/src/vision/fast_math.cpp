#include "vision/fast_math.hpp"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace fpgacnn::vision_detail {

float fast_math_reciprocal(float x) {
#if defined(__SSE__)
    // rcpss is the scalar form of rcpps and gives the same per-lane approximation; it is a hardware
    // table lookup, so this matches libdarknet running on the same CPU.
    const float r = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
    return (r + r) - (x * r) * r;
#else
    return 1.0f / x;
#endif
}

}  // namespace fpgacnn::vision_detail

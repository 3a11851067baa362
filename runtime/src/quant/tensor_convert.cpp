// Array forms of the contract's scalar conversions, so that code outside the kernel component (the
// pipeline) converts tensors without including the HLS headers.
#include <cmath>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "quant/tensor_convert_avx512.hpp"

namespace fpgacnn {

void quantize_tensor(const float* values, std::size_t count, int q, int16_t* out, int bits) {
    // Per frame on the whole input image: the power of two once, not a libm call per value.
    const double scale = std::ldexp(1.0, q);
#if defined(__x86_64__) || defined(__i386__)
    // A 416x416 image per frame: the scalar loop was 3 % of a yolov3-tiny int8 frame's CPU.
    static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                               __builtin_cpu_supports("avx512vl");
    if (avx512) {
        detail::quantize_tensor_avx512(values, count, scale, out, bits);
        return;
    }
#endif
    for (std::size_t i = 0; i < count; ++i)
        out[i] = arith::saturate_to_width(arith::quantize_scaled(values[i], scale), bits);
}

void dequantize_tensor(const int16_t* values, std::size_t count, int q, float* out) {
    // v * 2^-q is exact in float for an int16 v and the contract's exponents (the product stays a
    // normal number), so one multiply gives arith::dequantize's ldexpf bits.
    const float scale = std::ldexp(1.0F, -q);
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<float>(values[i]) * scale;
}

}  // namespace fpgacnn

// Array forms of the contract's scalar conversions, so that code outside the kernel component (the
// pipeline) converts tensors without including the HLS headers.
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {

void quantize_tensor(const float* values, std::size_t count, int q, int16_t* out, int bits) {
    for (std::size_t i = 0; i < count; ++i) out[i] = arith::quantize_to_width(values[i], q, bits);
}

void dequantize_tensor(const int16_t* values, std::size_t count, int q, float* out) {
    for (std::size_t i = 0; i < count; ++i) out[i] = arith::dequantize(values[i], q);
}

}  // namespace fpgacnn

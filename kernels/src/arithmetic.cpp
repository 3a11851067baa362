#include "fpgacnn/kernel/arithmetic.hpp"

#include <math.h>

namespace fpgacnn {
namespace arith {

int16_t quantize(float value, int q) { return quantize_scaled(value, ldexp(1.0, q)); }

int16_t quantize_to_width(float value, int q, int bits) {
    const int16_t wide = quantize(value, q);
    return saturate_to_width(wide, bits);
}

float dequantize(int16_t value, int q) { return ldexpf(static_cast<float>(value), -q); }

}  // namespace arith
}  // namespace fpgacnn

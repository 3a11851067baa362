#include "fpgacnn/kernel/arithmetic.hpp"

#include <math.h>

namespace fpgacnn {
namespace arith {

int16_t quantize(float value, int q) {
    // NaN maps to 0 rather than to an undefined conversion.
    if (!(value == value)) return 0;
    const double scaled = floor(static_cast<double>(value) * ldexp(1.0, q) + 0.5);
    if (scaled > 32767.0) return 32767;
    if (scaled < -32768.0) return -32768;
    return static_cast<int16_t>(scaled);
}

int16_t quantize_to_width(float value, int q, int bits) {
    const int16_t wide = quantize(value, q);
    return saturate_to_width(wide, bits);
}

float dequantize(int16_t value, int q) { return ldexpf(static_cast<float>(value), -q); }

}  // namespace arith
}  // namespace fpgacnn

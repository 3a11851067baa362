#include "int16/host_logistic.hpp"

#include <cmath>

#include "float/darknet_math.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn::int16_detail {

void int16_logistic_in_place(int16_t* data, std::size_t count, int q, int bits) {
    const float to_float = std::ldexp(1.0F, -q);  // exact: v * 2^-q is arith::dequantize's value
    const double to_fixed = std::ldexp(1.0, q);
    for (std::size_t i = 0; i < count; ++i) {
        const float y = detail::darknet_logistic(static_cast<float>(data[i]) * to_float);
        data[i] = arith::saturate_to_width(arith::quantize_scaled(y, to_fixed), bits);
    }
}

}  // namespace fpgacnn::int16_detail

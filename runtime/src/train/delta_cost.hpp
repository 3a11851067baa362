// darknet's cost of a loss layer: pow(mag_array(delta, n), 2), the squares summed in float in order.
#pragma once

#include <cmath>
#include <cstddef>

namespace fpgacnn::train {

inline float delta_cost(const float* delta, std::size_t count) {
    float squares = 0;
    for (std::size_t k = 0; k < count; ++k) squares += delta[k] * delta[k];
    return static_cast<float>(std::pow(std::sqrt(squares), 2));
}

}  // namespace fpgacnn::train

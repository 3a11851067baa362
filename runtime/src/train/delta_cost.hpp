// darknet's cost of a loss layer: pow(mag_array(delta, n), 2), the squares summed in float in order.
#pragma once

#include <cmath>
#include <cstddef>

namespace fpgacnn::train {

/// The same over the entries k for which `counted(k)` holds, in the same order: equal to delta_cost
/// of a copy with the others set to 0 (adding 0 does not change a float sum).
template <typename Counted>
float delta_cost_of(const float* delta, std::size_t count, Counted counted) {
    float squares = 0;
    for (std::size_t k = 0; k < count; ++k) {
        if (counted(k)) squares += delta[k] * delta[k];
    }
    return static_cast<float>(std::pow(std::sqrt(squares), 2));
}

inline float delta_cost(const float* delta, std::size_t count) {
    return delta_cost_of(delta, count, [](std::size_t) { return true; });
}

}  // namespace fpgacnn::train

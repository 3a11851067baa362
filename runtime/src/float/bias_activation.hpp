// The pass after each conv's sgemm: add the filter's bias, then darknet's activation.
#pragma once

#include <cstddef>

#include "fpgacnn/network.hpp"

namespace fpgacnn::detail {

/// values[i] = activation(values[i] + bias), bit-identical to darknet's add_bias followed by
/// activate_array (leaky computed in double, as darknet does).
void add_bias_and_activate(float* values, std::size_t count, float bias, Activation activation);

}  // namespace fpgacnn::detail

// How error messages name a layer: one wording for every component (float, int16, planner).
#pragma once

#include <string>

#include "fpgacnn/network.hpp"

namespace fpgacnn::core {

/// "layer 3 (convolutional, cfg line 25)"; "layer 3 (convolutional)" for a layer built in code (no cfg
/// line).
std::string describe_layer(const Layer& layer);

}  // namespace fpgacnn::core

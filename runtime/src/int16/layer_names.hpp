// Layer and shape descriptions for the int16 backend's error messages.
#pragma once

#include <string>

#include "core/layer_description.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn::int16_detail {

using core::describe_layer;

/// "CxHxW".
inline std::string shape_text(const TensorShape& s) {
    return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

}  // namespace fpgacnn::int16_detail

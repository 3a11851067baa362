// Layer and shape descriptions for the int16 backend's error messages.
#pragma once

#include <string>

#include "fpgacnn/network.hpp"

namespace fpgacnn::int16_detail {

/// "layer 3 (convolutional, cfg line 25)".
inline std::string describe_layer(const Layer& layer) {
    std::string text = "layer " + std::to_string(layer.index) + " (" + layer_type_name(layer.type);
    if (layer.cfg_line > 0) text += ", cfg line " + std::to_string(layer.cfg_line);
    return text + ")";
}

/// "CxHxW".
inline std::string shape_text(const TensorShape& s) {
    return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

}  // namespace fpgacnn::int16_detail

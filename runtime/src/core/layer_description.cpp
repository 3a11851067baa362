#include "core/layer_description.hpp"

namespace fpgacnn::core {

std::string describe_layer(const Layer& layer) {
    std::string text = "layer " + std::to_string(layer.index) + " (" + layer_type_name(layer.type);
    if (layer.cfg_line > 0) text += ", cfg line " + std::to_string(layer.cfg_line);
    return text + ")";
}

}  // namespace fpgacnn::core

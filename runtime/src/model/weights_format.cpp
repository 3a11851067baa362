#include "model/weights_format.hpp"

#include <cstdio>

#include "fpgacnn/darknet.hpp"

namespace fpgacnn::model {

ConvArrayCounts conv_array_counts(const Layer& layer) {
    const ConvParams& conv = layer.conv();
    ConvArrayCounts counts;
    counts.biases = static_cast<std::size_t>(conv.filters);
    counts.bn_each = conv.batch_normalize ? counts.biases : 0;
    counts.weights = counts.biases * static_cast<std::size_t>(layer.input.c) * conv.size * conv.size;
    return counts;
}

std::size_t parameter_count(const Network& network) {
    std::size_t count = 0;
    for (const Layer& layer : network.layers) {
        if (layer.type == LayerType::Convolutional) count += conv_array_counts(layer).total();
    }
    return count;
}

std::string float_text(float value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(value));
    return text;
}

std::string describe_conv_layer(const Layer& layer) {
    const bool connected = layer.type == LayerType::Convolutional && layer.conv().connected;
    return std::string(connected ? "connected" : layer_type_name(layer.type)) + " layer " +
           std::to_string(layer.index) + " (cfg line " + std::to_string(layer.cfg_line) + ")";
}

}  // namespace fpgacnn::model

namespace fpgacnn {

std::size_t expected_weights_bytes(const Network& network) {
    return model::kHeaderBytesSeen64 + sizeof(float) * model::parameter_count(network);
}

}  // namespace fpgacnn

#include "float/layer_checks.hpp"

#include <cstddef>

#include "fpgacnn/error.hpp"

namespace fpgacnn::detail {

void require_layer_type(const Layer& layer, LayerType expected, const char* operation) {
    if (layer.type != expected) {
        throw Error(std::string(operation) + " called on " + describe_layer(layer) + ", which is not a [" +
                    layer_type_name(expected) + "] layer");
    }
}

void require_conv_ready(const Layer& layer) {
    require_layer_type(layer, LayerType::Convolutional, "conv_forward");
    const ConvParams& conv = layer.conv();
    const std::size_t expected_weights =
        static_cast<std::size_t>(conv.filters) * layer.input.c * conv.size * conv.size;
    if (conv.weights.empty()) {
        throw Error(describe_layer(layer) +
                    " has no weights: load a .weights file (or synthetic weights) "
                    "before running the float engine");
    }
    if (conv.weights.size() != expected_weights ||
        conv.biases.size() != static_cast<std::size_t>(conv.filters)) {
        throw Error(describe_layer(layer) + " has " + std::to_string(conv.weights.size()) + " weights and " +
                    std::to_string(conv.biases.size()) + " biases, but its shape needs " +
                    std::to_string(expected_weights) + " and " + std::to_string(conv.filters));
    }
    if (conv.batch_normalize && !conv.bn_folded()) {
        throw Error(describe_layer(layer) +
                    " still has an unfolded batch-norm: call fold_batchnorm() (or "
                    "load_darknet_model) before running the float engine");
    }
    if (conv.stride < 1 || conv.size < 1) {
        throw Error(describe_layer(layer) + ": size and stride must be >= 1");
    }
    const int out_h = (layer.input.h + 2 * conv.pad - conv.size) / conv.stride + 1;
    const int out_w = (layer.input.w + 2 * conv.pad - conv.size) / conv.stride + 1;
    if (layer.output != TensorShape{conv.filters, out_h, out_w}) {
        throw Error(describe_layer(layer) + ": output shape " + std::to_string(layer.output.c) + "x" +
                    std::to_string(layer.output.h) + "x" + std::to_string(layer.output.w) +
                    " does not follow from its input, filters, size, stride and pad");
    }
}

}  // namespace fpgacnn::detail

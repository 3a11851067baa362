#include "int16/exponent_rules.hpp"

#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn::int16_detail {

namespace {

void require_equal(const Layer& layer, const std::string& what_a, int a, const std::string& what_b, int b,
                   const char* why) {
    if (a == b) return;
    throw Error(describe_layer(layer) + ": " + what_a + " = " + std::to_string(a) + " but " + what_b + " = " +
                std::to_string(b) + "; " + why + " (docs/arithmetic.md). Re-run calibration.");
}

}  // namespace

void check_exponent_rules(const QuantizedNetwork& network) {
    const std::vector<Layer>& layers = network.network.layers;
    if (network.layers.size() != layers.size()) {
        throw Error("quantized network has " + std::to_string(network.layers.size()) +
                    " quantized layers for " + std::to_string(layers.size()) +
                    " network layers; the quantized model does not match its cfg");
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Layer& layer = layers[i];
        const QuantizedLayer& q = network.layers[i];
        if (layer.type == LayerType::Route) {
            for (const int source : layer.route().inputs) {
                if (source < 0 || static_cast<std::size_t>(source) >= i) {
                    throw Error(describe_layer(layer) + ": route input " + std::to_string(source) +
                                " is not an earlier layer");
                }
                require_equal(layer, "its output_q", q.output_q,
                              "output_q of its input layer " + std::to_string(source),
                              network.layers[source].output_q,
                              "a route concatenates int16 values, so every input must share its exponent");
            }
            require_equal(layer, "its input_q", q.input_q, "its output_q", q.output_q,
                          "a route does not rescale, so its input and output exponents are equal");
            continue;
        }
        if (i == 0) {
            require_equal(layer, "its input_q", q.input_q, "the network input_q", network.input_q,
                          "the first layer reads the quantized image");
        } else {
            require_equal(layer, "its input_q", q.input_q, "output_q of layer " + std::to_string(i - 1),
                          network.layers[i - 1].output_q, "a layer reads its predecessor's output as is");
        }
        switch (layer.type) {
            case LayerType::Convolutional:
                (void)int16_conv_args(layer, q);
                break;
            case LayerType::MaxPool:
                require_equal(layer, "its input_q", q.input_q, "its output_q", q.output_q,
                              "a maxpool does not rescale");
                break;
            case LayerType::Reorg:
                require_equal(layer, "its input_q", q.input_q, "its output_q", q.output_q,
                              "a reorg does not rescale");
                break;
            case LayerType::Region:
                require_equal(layer, "its input_q", q.input_q, "its output_q", q.output_q,
                              "the region layer passes its int16 input through to the host");
                break;
            case LayerType::Route:
                break;
        }
    }
}

}  // namespace fpgacnn::int16_detail

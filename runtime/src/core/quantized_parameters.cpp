// The int16 parameters of a QuantizedNetwork, wherever they are: in its layers or in the model file.
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

namespace {

const QuantizedLayer& layer_at(const QuantizedNetwork& quantized, std::size_t layer) {
    if (layer >= quantized.layers.size()) {
        throw Error("quantized network: no layer " + std::to_string(layer) + " (it has " +
                    std::to_string(quantized.layers.size()) + ")");
    }
    return quantized.layers[layer];
}

}  // namespace

std::size_t quantized_weight_count(const QuantizedNetwork& quantized, std::size_t layer) {
    const QuantizedLayer& q = layer_at(quantized, layer);
    return quantized.parameter_source ? quantized.parameter_source->weight_count(layer) : q.weights.size();
}

std::size_t quantized_bias_count(const QuantizedNetwork& quantized, std::size_t layer) {
    const QuantizedLayer& q = layer_at(quantized, layer);
    return quantized.parameter_source ? quantized.parameter_source->bias_count(layer) : q.biases.size();
}

ResidentLayer::ResidentLayer(const QuantizedNetwork& quantized, std::size_t layer)
    : layer_(&layer_at(quantized, layer)) {
    if (!quantized.parameter_source) return;
    read_ = *layer_;  // the exponents; the parameters come from the source
    quantized.parameter_source->read(layer, read_);
    layer_ = &read_;
    require_weights_fit_width(read_, "quantized model file: layer " + std::to_string(layer));
}

void require_weights_fit_width(const int16_t* weights, std::size_t count, int weight_bits,
                               const std::string& where) {
    if (weight_bits == arith::kDataBits) return;
    for (std::size_t i = 0; i < count; ++i) {
        if (weights[i] != arith::saturate_to_width(weights[i], weight_bits)) {
            throw Error(where + ": weight " + std::to_string(i) + " is " + std::to_string(weights[i]) +
                        ", outside the layer's " + std::to_string(weight_bits) +
                        "-bit range; re-run fpgacnn-quantize");
        }
    }
}

void require_weights_fit_width(const QuantizedLayer& layer, const std::string& where) {
    require_weights_fit_width(layer.weights.data(), layer.weights.size(), layer.weight_bits, where);
}

}  // namespace fpgacnn

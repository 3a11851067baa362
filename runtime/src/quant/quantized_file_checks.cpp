#include "quant/quantized_file_checks.hpp"

#include <fmt/format.h>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {

namespace {

void check_exponent(int q, const std::string& where, int layer, const char* what) {
    if (q < arith::kMinExponent || q > arith::kMaxExponent) {
        const std::string owner = layer < 0 ? "the network" : "layer " + std::to_string(layer);
        throw Error(fmt::format("{}: {} has {} exponent {}, outside the contract's range [{}, {}]", where,
                                owner, what, q, arith::kMinExponent, arith::kMaxExponent));
    }
}

void check_shift(int shift, int low, int high, const std::string& where, int layer, const char* what) {
    if (shift < low || shift > high) {
        throw Error(
            fmt::format("{}: layer {} has {} {}, outside [{}, {}]", where, layer, what, shift, low, high));
    }
}

}  // namespace

std::size_t conv_weight_count(const Layer& layer) {
    const ConvParams& conv = layer.conv();
    return static_cast<std::size_t>(conv.filters) * layer.input.c * conv.size * conv.size;
}

void check_quantized_layers(const QuantizedNetwork& quantized, const std::string& where) {
    const Network& network = quantized.network;
    if (quantized.layers.size() != network.layers.size()) {
        throw Error(fmt::format("{}: {} quantized layers for a network of {}", where, quantized.layers.size(),
                                network.layers.size()));
    }
    check_exponent(quantized.input_q, where, -1, "input");
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        const QuantizedLayer& q = quantized.layers[i];
        const int index = static_cast<int>(i);
        check_exponent(q.input_q, where, index, "input");
        check_exponent(q.output_q, where, index, "output");
        if (layer.type != LayerType::Convolutional) {
            if (!q.weights.empty() || !q.biases.empty()) {
                throw Error(fmt::format("{}: layer {} ({}) carries parameters", where, i,
                                        layer_type_name(layer.type)));
            }
            continue;
        }
        check_exponent(q.weight_q, where, index, "weight");
        check_exponent(q.bias_q, where, index, "bias");
        const int accumulator_q = q.weight_q + q.input_q;
        check_shift(accumulator_q - q.bias_q, arith::kModelMinBiasShift, arith::kModelMaxBiasShift, where,
                    index, "bias_shift");
        check_shift(accumulator_q - q.output_q, arith::kModelMinOutputShift, arith::kModelMaxOutputShift,
                    where, index, "output_shift");
        const std::size_t weights = conv_weight_count(layer);
        const auto biases = static_cast<std::size_t>(layer.conv().filters);
        if (q.weights.size() != weights || q.biases.size() != biases) {
            throw Error(fmt::format("{}: layer {} has {} weights and {} biases, the cfg needs {} and {}",
                                    where, i, q.weights.size(), q.biases.size(), weights, biases));
        }
    }
}

}  // namespace fpgacnn

#include "train/fake_quant.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "core/thread_pool.hpp"
#include "float/layer_checks.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn::train {

namespace {

int width_high(int bits) { return (1 << (bits - 1)) - 1; }
int width_low(int bits) { return -(1 << (bits - 1)); }

void require_fixed_point_forward(const Layer& layer) {
    switch (layer.type) {
        case LayerType::Convolutional:
            if (layer.conv().batch_normalize) {
                throw Error(detail::describe_layer(layer) +
                            ": quantization-aware training needs its batch-norm folded into the weights "
                            "first, as the fixed-point paths run it");
            }
            return;
        case LayerType::MaxPool:
        case LayerType::Route:
        case LayerType::Reorg:
        case LayerType::Upsample:
        case LayerType::Region:
        case LayerType::Yolo:  // like the region: float on the head conv's dequantized output
            return;
        case LayerType::Shortcut:
        case LayerType::Unsupported:
        case LayerType::AvgPool:
        case LayerType::Softmax:
        case LayerType::Dropout:
        case LayerType::Cost:
        case LayerType::Crop:
            break;
    }
    throw Error(
        detail::describe_layer(layer) +
        ": quantization-aware training covers conv, maxpool, route, reorg, upsample, region and yolo layers");
}

}  // namespace

FakeQuantizer::FakeQuantizer(const Network& network) {
    for (const Layer& layer : network.layers) require_fixed_point_forward(layer);
    outputs_.resize(network.layers.size());
    weights_.resize(network.layers.size());
}

void FakeQuantizer::set_plan(const QuantizedNetwork& plan) {
    if (plan.layers.size() != outputs_.size()) {
        throw Error(plan.network.cfg_path + ": a fixed-point plan of " + std::to_string(plan.layers.size()) +
                    " layers for a network of " + std::to_string(outputs_.size()));
    }
    validate_quantized_network(plan, plan.network.cfg_path + " (quantization-aware training)");
    plan_.network = Network{};  // the shapes come from the trainer's network; only exponents and widths count
    plan_.network.cfg_path = plan.network.cfg_path;
    plan_.input_q = plan.input_q;
    plan_.layers = plan.layers;
    for (QuantizedLayer& layer : plan_.layers) {
        layer.weights.clear();  // quantized again from the float weights on every forward
        layer.biases.clear();
    }
}

int FakeQuantizer::input_bits_of(int layer) const {
    return layer == 0 ? arith::kDataBits : plan_.layers[static_cast<std::size_t>(layer) - 1].output_bits;
}

const float* FakeQuantizer::quantize_input(const float* input, int batch, std::size_t image_size) {
    const std::size_t count = image_size * static_cast<std::size_t>(batch);
    std::vector<int16_t> quantized(count);
    quantize_tensor(input, count, plan_.input_q, quantized.data(), arith::kDataBits);
    input_.resize(count);
    dequantize_tensor(quantized.data(), count, plan_.input_q, input_.data());
    return input_.data();
}

void FakeQuantizer::conv_forward(const Layer& layer, int batch, const float* input, float* output) {
    const auto i = static_cast<std::size_t>(layer.index);
    const ConvParams& conv = layer.conv();
    QuantizedLayer quantized = plan_.layers[i];
    quantized.weights.resize(conv.weights.size());
    quantized.biases.resize(conv.biases.size());
    quantize_tensor(conv.weights.data(), conv.weights.size(), quantized.weight_q, quantized.weights.data(),
                    quantized.weight_bits);
    quantize_tensor(conv.biases.data(), conv.biases.size(), quantized.bias_q, quantized.biases.data(),
                    arith::kDataBits);
    weights_[i].resize(conv.weights.size());
    dequantize_tensor(quantized.weights.data(), quantized.weights.size(), quantized.weight_q,
                      weights_[i].data());

    const int input_bits = input_bits_of(layer.index);
    const Int16ConvArgs args = int16_conv_args(layer, quantized, input_bits);
    Int16PackedConv packed(args, quantized.weights.data(), quantized.biases.data(), best_int16_isa());
    const std::size_t in_size = layer.input.size();
    const std::size_t out_size = layer.output.size();
    const int input_q = plan_.layers[i].input_q;
    std::vector<int16_t> image(in_size);
    outputs_[i].resize(out_size * static_cast<std::size_t>(batch));
    for (int b = 0; b < batch; ++b) {
        // `input` is on the producer's grid, so this quantization gives back its integers exactly.
        quantize_tensor(input + b * in_size, in_size, input_q, image.data(), input_bits);
        packed.run(image.data(), outputs_[i].data() + b * out_size, &ThreadPool::shared());
    }
    dequantize_tensor(outputs_[i].data(), outputs_[i].size(), quantized.output_q, output);
}

void FakeQuantizer::clip_output_delta(const Layer& layer, int batch, float* delta) const {
    const std::vector<int16_t>& values = outputs_.at(static_cast<std::size_t>(layer.index));
    const std::size_t count = layer.output.size() * static_cast<std::size_t>(batch);
    if (values.size() != count) throw Error(detail::describe_layer(layer) + ": backward before its forward");
    const int bits = plan_.layers[static_cast<std::size_t>(layer.index)].output_bits;
    const int high = width_high(bits);
    const int low = width_low(bits);
    for (std::size_t k = 0; k < count; ++k) {
        if (values[k] >= high || values[k] <= low) delta[k] = 0;
    }
}

void FakeQuantizer::swap_weights(Layer& layer) {
    std::vector<float>& quantized = weights_.at(static_cast<std::size_t>(layer.index));
    if (quantized.size() != layer.conv().weights.size())
        throw Error(detail::describe_layer(layer) + ": backward before its forward");
    std::swap(layer.conv().weights, quantized);
}

void FakeQuantizer::clip_weight_gradients(const Layer& layer, ConvGradients& gradients) const {
    const QuantizedLayer& quantized = plan_.layers.at(static_cast<std::size_t>(layer.index));
    const std::vector<float>& weights = layer.conv().weights;
    const double scale = std::ldexp(1.0, quantized.weight_q);
    // A weight beyond these rounds to the saturated value: the quantizer is flat there.
    const double high = width_high(quantized.weight_bits) + 0.5;
    const double low = width_low(quantized.weight_bits) - 0.5;
    for (std::size_t k = 0; k < weights.size(); ++k) {
        const double scaled = static_cast<double>(weights[k]) * scale;
        if (scaled >= high || scaled < low) gradients.weight_updates[k] = 0;
    }
}

}  // namespace fpgacnn::train

#include "fpgacnn/float_engine.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "float/layer_checks.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

namespace {

std::string shape_text(const TensorShape& s) {
    return std::to_string(s.c) + "x" + std::to_string(s.h) + "x" + std::to_string(s.w);
}

void validate_route(const Network& network, const Layer& layer) {
    std::size_t total = 0;
    for (const int source : layer.route().inputs) {
        if (source < 0 || source >= layer.index) {
            throw Error(detail::describe_layer(layer) + ": route input " + std::to_string(source) +
                        " is not an earlier layer");
        }
        total += network.layers[source].output.size() / static_cast<std::size_t>(layer.route().groups);
    }
    if (total != layer.output.size()) {
        throw Error(detail::describe_layer(layer) + ": its inputs hold " + std::to_string(total) +
                    " values but its output shape " + shape_text(layer.output) + " needs " +
                    std::to_string(layer.output.size()));
    }
}

// Everything run() relies on, checked once so that a bad network fails here with a clear
// message instead of reading out of bounds later.
// The engine's copy of the network (its float weights), every layer's output and the workspace,
// checked before the copy is made.
const Network& require_float_memory(const Network& network) {
    const NetworkMemory memory = estimate_network_memory(network);
    require_host_memory(memory.float_path(), "the float path of " + network.cfg_path,
                        "weights " + bytes_text(memory.weights) + ", layer outputs " +
                            bytes_text(memory.activations) + ", im2col workspace " +
                            bytes_text(memory.workspace),
                        "use a smaller --input, or --precision int16 with a quantized model");
    return network;
}

void validate(const Network& network) {
    if (network.layers.empty()) throw Error(network.cfg_path + ": the network has no layers");
    if (!network.weights_loaded) {
        throw Error(network.cfg_path +
                    ": no weights loaded; load a .weights file (or synthetic weights) "
                    "before creating the float engine");
    }
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        if (layer.index != static_cast<int>(i)) {
            throw Error(detail::describe_layer(layer) + " is stored at position " + std::to_string(i));
        }
        const TensorShape& expected_input = i == 0 ? network.input : network.layers[i - 1].output;
        if (layer.type != LayerType::Route && !layer.reads(expected_input)) {
            throw Error(detail::describe_layer(layer) + ": input shape " + shape_text(layer.input) +
                        " does not match the " + (i == 0 ? "network input " : "previous layer's output ") +
                        shape_text(expected_input));
        }
        if (layer.type == LayerType::Unsupported) {
            throw Error(detail::describe_layer(layer) + ": [" +
                        std::get<UnsupportedParams>(layer.params).section +
                        "] is parsed for planning only (fpgacnn-plan); fpgacnn does not run it");
        }
        if (layer.type == LayerType::Convolutional) detail::require_conv_ready(layer);
        if (layer.type == LayerType::Route) validate_route(network, layer);
        if (layer.type == LayerType::Shortcut &&
            (layer.shortcut().from < 0 || layer.shortcut().from >= layer.index)) {
            throw Error(detail::describe_layer(layer) + ": shortcut from " +
                        std::to_string(layer.shortcut().from) + " is not an earlier layer");
        }
        if ((layer.type == LayerType::Region || layer.type == LayerType::Yolo) &&
            layer.output != layer.input) {
            throw Error(detail::describe_layer(layer) +
                        ": a region layer's output must have its input's shape");
        }
    }
}

}  // namespace

FloatEngine::FloatEngine(const Network& network) : network_(require_float_memory(network)) {
    validate(network_);
    std::size_t workspace_floats = 0;
    outputs_.reserve(network_.layers.size());
    for (const Layer& layer : network_.layers) {
        outputs_.emplace_back(layer.output.size());
        workspace_floats = std::max(workspace_floats, im2col_workspace_floats(layer));
    }
    workspace_.resize(workspace_floats);
    layer_ms_.resize(network_.layers.size());
}

FloatEngine::~FloatEngine() = default;

const std::vector<float>& FloatEngine::run(const float* input) {
    auto layer_start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < network_.layers.size(); ++i) {
        const Layer& layer = network_.layers[i];
        const float* layer_input = i == 0 ? input : outputs_[i - 1].data();
        float* output = outputs_[i].data();
        switch (layer.type) {
            case LayerType::Convolutional:
                conv_forward(layer, layer_input, output, workspace_.data());
                break;
            case LayerType::MaxPool:
                maxpool_forward(layer, layer_input, output);
                break;
            case LayerType::Reorg:
                reorg_forward(layer, layer_input, output);
                break;
            case LayerType::Route:
                route_forward(layer, outputs_, output);
                break;
            case LayerType::Region:
                std::copy(layer_input, layer_input + layer.input.size(), output);
                region_activate(layer.region(), layer.output, output);
                break;
            case LayerType::Upsample:
                upsample_forward(layer, layer_input, output);
                break;
            case LayerType::Shortcut: {
                const int from = layer.shortcut().from;
                shortcut_forward(layer, layer_input, outputs_[from].data(), network_.layers[from].output,
                                 output);
                break;
            }
            case LayerType::Yolo:
                std::copy(layer_input, layer_input + layer.input.size(), output);
                yolo_activate(layer.yolo(), layer.output, output);
                break;
            case LayerType::AvgPool:
                avgpool_forward(layer, layer_input, output);
                break;
            case LayerType::Softmax:
                std::copy(layer_input, layer_input + layer.input.size(), output);
                softmax_activate(layer.softmax(), layer.output, output);
                break;
            case LayerType::Dropout:  // identity at inference
            case LayerType::Cost:
                std::copy(layer_input, layer_input + layer.input.size(), output);
                break;
            case LayerType::Crop:
                crop_forward(layer, layer_input, output);
                break;
            case LayerType::Unsupported:  // refused by validate()
                throw Error(detail::describe_layer(layer) + " is not run by fpgacnn");
        }
        const auto layer_end = std::chrono::steady_clock::now();
        layer_ms_[i] = std::chrono::duration<double, std::milli>(layer_end - layer_start).count();
        layer_start = layer_end;
    }
    return outputs_.back();
}

const std::vector<float>& FloatEngine::layer_output(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= outputs_.size()) {
        throw Error("FloatEngine::layer_output: layer " + std::to_string(i) +
                    " does not exist (the network has " + std::to_string(outputs_.size()) + " layers)");
    }
    return outputs_[i];
}

}  // namespace fpgacnn

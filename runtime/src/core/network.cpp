#include "fpgacnn/network.hpp"

#include <string>

#include "fpgacnn/error.hpp"

namespace fpgacnn {

std::size_t Network::conv_macs() const {
    std::size_t macs = 0;
    for (const Layer& layer : layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& conv = layer.conv();
        macs += layer.output.size() * static_cast<std::size_t>(layer.input.c) * conv.size * conv.size;
    }
    return macs;
}

int Network::region_layer_index() const {
    for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
        if (layers[i].type == LayerType::Region) return i;
    }
    throw Error(cfg_path + ": the network has no [region] layer; fpgacnn runs YOLOv2-style detectors");
}

std::vector<int> Network::output_layer_indices() const {
    std::vector<int> yolo_heads;
    for (const Layer& layer : layers) {
        if (layer.type == LayerType::Yolo) yolo_heads.push_back(layer.index);
    }
    if (!yolo_heads.empty()) return yolo_heads;
    for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
        if (layers[i].type == LayerType::Region) return {i};
    }
    for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
        if (layers[i].type == LayerType::Softmax) return {i};
    }
    throw Error(cfg_path +
                ": the network has no [region], [yolo] or [softmax] layer; fpgacnn detects with YOLOv2 / "
                "YOLOv3 style output layers and classifies with a [softmax] one");
}

bool Network::is_classifier() const {
    bool softmax = false;
    for (const Layer& layer : layers) {
        if (layer.type == LayerType::Region || layer.type == LayerType::Yolo) return false;
        softmax = softmax || layer.type == LayerType::Softmax;
    }
    return softmax;
}

std::size_t Network::detection_output_size() const {
    std::size_t total = 0;
    for (const int i : output_layer_indices()) total += layers[static_cast<std::size_t>(i)].output.size();
    return total;
}

int Network::output_classes() const {
    const Layer& layer = layers[static_cast<std::size_t>(output_layer_indices().front())];
    if (layer.type == LayerType::Softmax) return static_cast<int>(layer.output.size());
    return layer.type == LayerType::Yolo ? layer.yolo().classes : layer.region().classes;
}

const char* activation_name(Activation activation) {
    switch (activation) {
        case Activation::Linear:
            return "linear";
        case Activation::Leaky:
            return "leaky";
        case Activation::Relu:
            return "relu";
        case Activation::Logistic:
            return "logistic";
        case Activation::Mish:
            return "mish";
    }
    return "unknown";
}

const char* layer_type_name(LayerType type) {
    switch (type) {
        case LayerType::Convolutional:
            return "convolutional";
        case LayerType::MaxPool:
            return "maxpool";
        case LayerType::Route:
            return "route";
        case LayerType::Reorg:
            return "reorg";
        case LayerType::Region:
            return "region";
        case LayerType::Upsample:
            return "upsample";
        case LayerType::Shortcut:
            return "shortcut";
        case LayerType::Yolo:
            return "yolo";
        case LayerType::Unsupported:
            return "unsupported";
        case LayerType::AvgPool:
            return "avgpool";
        case LayerType::Softmax:
            return "softmax";
        case LayerType::Dropout:
            return "dropout";
        case LayerType::Cost:
            return "cost";
        case LayerType::Crop:
            return "crop";
    }
    return "unknown";
}

}  // namespace fpgacnn

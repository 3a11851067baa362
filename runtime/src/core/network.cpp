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
    }
    return "unknown";
}

}  // namespace fpgacnn

// release_float_parameters: the float copy of a network's parameters, freed once only int16 runs.
#include "fpgacnn/darknet.hpp"

namespace fpgacnn {

void release_float_parameters(Network& network) {
    for (Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        ConvParams& conv = layer.conv();
        // swap with empty vectors: clear() would keep the capacity.
        std::vector<float>().swap(conv.weights);
        std::vector<float>().swap(conv.biases);
        std::vector<float>().swap(conv.bn_scales);
        std::vector<float>().swap(conv.bn_mean);
        std::vector<float>().swap(conv.bn_variance);
    }
    network.weights_loaded = false;
}

}  // namespace fpgacnn

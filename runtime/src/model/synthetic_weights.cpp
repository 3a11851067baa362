// fill_synthetic_weights: parameters for cfgs without trained weights (yolov2.cfg, ...), chosen so a
// forward pass keeps activations in a sane range through 20+ layers. See docs/model-loading.md.
#include <cmath>
#include <string>

#include "fpgacnn/darknet.hpp"
#include "model/deterministic_random.hpp"
#include "model/weights_format.hpp"

namespace fpgacnn {

namespace {

enum ArrayId { kWeights = 1, kBiases, kScales, kMeans, kVariances };

bool next_layer_is(const Network& network, const Layer& layer, LayerType type) {
    const std::size_t next = static_cast<std::size_t>(layer.index) + 1;
    return next < network.layers.size() && network.layers[next].type == type;
}

// Standard deviation of the weights: He et al. for leaky ReLU (slope 0.1, so gain^2 = 2 / 1.01)
// keeps the second moment of the activations constant from layer to layer. The [region] head is
// linear and its outputs feed exp() for box sizes: unit gain keeps them moderate (|x| < 4 on real
// images); so are the [yolo] heads. A residual branch (the conv before a [shortcut]) gets a tenth of
// the std: each of YOLOv3's 23 shortcuts adds its branch to the trunk, and at full gain the trunk's
// second moment would double at each one. Only products, quotients and square roots here: no
// expression a compiler could fuse into an FMA, which would change the last bit on some machines.
double weight_std(const Network& network, const Layer& layer) {
    const ConvParams& conv = layer.conv();
    const double fan_in = static_cast<double>(layer.input.c) * conv.size * conv.size;
    if (next_layer_is(network, layer, LayerType::Region) || next_layer_is(network, layer, LayerType::Yolo) ||
        conv.activation == Activation::Linear) {
        return std::sqrt(1.0 / fan_in);
    }
    const double he = std::sqrt(2.0 / (1.01 * fan_in));
    return next_layer_is(network, layer, LayerType::Shortcut) ? he * 0.1 : he;
}

// center + half_width * u with u in [-1, 1): the float product is exact in double, so fused and
// unfused evaluation agree and the result is the same everywhere.
std::vector<float> uniform(std::size_t count, model::SplitMix64 random, float center, float half_width) {
    std::vector<float> values(count);
    for (float& value : values) {
        const double product = static_cast<double>(half_width) * static_cast<double>(random.symmetric());
        value = static_cast<float>(static_cast<double>(center) + product);
    }
    return values;
}

void fill_layer(const Network& network, Layer& layer, std::uint64_t seed) {
    const model::ConvArrayCounts counts = model::conv_array_counts(layer);
    ConvParams& conv = layer.conv();
    const int id = layer.index;
    // A uniform distribution on [-a, a) has standard deviation a / sqrt(3).
    const auto half_width = static_cast<float>(std::sqrt(3.0) * weight_std(network, layer));
    conv.weights = uniform(counts.weights, model::stream_for(seed, id, kWeights), 0.0f, half_width);
    conv.biases = uniform(counts.biases, model::stream_for(seed, id, kBiases), 0.0f, 0.1f);
    conv.bn_scales = uniform(counts.bn_each, model::stream_for(seed, id, kScales), 1.0f, 0.1f);
    conv.bn_mean = uniform(counts.bn_each, model::stream_for(seed, id, kMeans), 0.0f, 0.1f);
    conv.bn_variance = uniform(counts.bn_each, model::stream_for(seed, id, kVariances), 1.0f, 0.2f);
}

}  // namespace

void fill_synthetic_weights(Network& network, std::uint64_t seed) {
    for (Layer& layer : network.layers) {
        if (layer.type == LayerType::Convolutional) fill_layer(network, layer, seed);
    }
    network.weights_path = "<synthetic seed=" + std::to_string(seed) + ">";
    network.weights_loaded = true;
}

}  // namespace fpgacnn

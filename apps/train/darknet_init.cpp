#include "darknet_init.hpp"

#include <cmath>
#include <random>

namespace fpgacnn::train_tool {

void darknet_random_init(Network& network, std::uint64_t seed) {
    std::mt19937 engine(static_cast<std::mt19937::result_type>(seed));
    // (0, 1]: Box-Muller takes the log of the first draw.
    auto unit = [&engine] { return (static_cast<double>(engine() >> 8) + 1.0) / 16777216.0; };
    constexpr double kTwoPi = 6.283185307179586;
    for (Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        ConvParams& conv = layer.conv();
        const auto filters = static_cast<std::size_t>(conv.filters);
        const std::size_t per_filter = static_cast<std::size_t>(layer.input.c) * conv.size * conv.size;
        const float scale = std::sqrt(2.0f / static_cast<float>(per_filter));
        conv.weights.resize(per_filter * filters);
        for (float& weight : conv.weights) {
            weight =
                scale * static_cast<float>(std::sqrt(-2.0 * std::log(unit())) * std::cos(kTwoPi * unit()));
        }
        conv.biases.assign(filters, 0.0f);
        if (conv.batch_normalize) {
            conv.bn_scales.assign(filters, 1.0f);
            conv.bn_mean.assign(filters, 0.0f);
            conv.bn_variance.assign(filters, 0.0f);
        }
    }
    network.weights_loaded = true;
}

}  // namespace fpgacnn::train_tool

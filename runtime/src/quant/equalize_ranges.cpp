// Cross-layer equalization (fpgacnn/equalization.hpp): which conv pairs may be rescaled, and the sweeps.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/layer_inputs.hpp"
#include "fpgacnn/equalization.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {
namespace {

// The layers that read layer `producer`'s output.
std::vector<int> readers_of(const Network& network, int producer) {
    std::vector<int> readers;
    for (const Layer& layer : network.layers) {
        const std::vector<int> inputs = core::layer_inputs(network, layer.index);
        if (std::find(inputs.begin(), inputs.end(), producer) != inputs.end()) readers.push_back(layer.index);
    }
    return readers;
}

bool positively_homogeneous(Activation activation) {
    return activation == Activation::Linear || activation == Activation::Leaky ||
           activation == Activation::Relu;
}

bool is_plain_conv(const Layer& layer) {
    return layer.type == LayerType::Convolutional && !layer.conv().connected;
}

// The conv that reads `first`'s output through maxpool layers alone, or -1.
int equalizable_partner(const Network& network, int first) {
    const Layer& layer = network.layers[static_cast<std::size_t>(first)];
    if (!is_plain_conv(layer) || !positively_homogeneous(layer.conv().activation)) return -1;
    for (int at = first;;) {
        const std::vector<int> readers = readers_of(network, at);
        if (readers.size() != 1 || readers[0] != at + 1) return -1;
        const Layer& next = network.layers[static_cast<std::size_t>(readers[0])];
        if (is_plain_conv(next)) return next.index;
        if (next.type != LayerType::MaxPool) return -1;
        at = next.index;
    }
}

// A conv's parameters in double while the sweeps run, so that a hundred rescalings round once.
struct ConvCopy {
    std::size_t filters = 0;
    std::size_t taps = 0;  // size * size
    std::vector<double> weights;
    std::vector<double> biases;

    explicit ConvCopy(const ConvParams& conv)
        : filters(static_cast<std::size_t>(conv.filters)),
          taps(static_cast<std::size_t>(conv.size) * static_cast<std::size_t>(conv.size)),
          weights(conv.weights.begin(), conv.weights.end()),
          biases(conv.biases.begin(), conv.biases.end()) {}
    std::size_t per_filter() const { return weights.size() / filters; }
    void store(ConvParams& conv) const {
        std::transform(weights.begin(), weights.end(), conv.weights.begin(),
                       [](double w) { return static_cast<float>(w); });
        std::transform(biases.begin(), biases.end(), conv.biases.begin(),
                       [](double b) { return static_cast<float>(b); });
    }
};

// max |w| of each output filter of `conv`.
std::vector<double> filter_ranges(const ConvCopy& conv) {
    std::vector<double> ranges(conv.filters, 0.0);
    for (std::size_t f = 0; f < conv.filters; ++f) {
        for (std::size_t k = 0; k < conv.per_filter(); ++k)
            ranges[f] = std::max(ranges[f], std::fabs(conv.weights[f * conv.per_filter() + k]));
    }
    return ranges;
}

// max |w| over the weights of `conv` that read input channel c, for each c of its input.
std::vector<double> input_channel_ranges(const ConvCopy& conv) {
    const std::size_t inputs = conv.per_filter() / conv.taps;
    std::vector<double> ranges(inputs, 0.0);
    for (std::size_t f = 0; f < conv.filters; ++f) {
        for (std::size_t c = 0; c < inputs; ++c) {
            const double* w = conv.weights.data() + (f * inputs + c) * conv.taps;
            for (std::size_t k = 0; k < conv.taps; ++k) ranges[c] = std::max(ranges[c], std::fabs(w[k]));
        }
    }
    return ranges;
}

double range_ratio(const std::vector<double>& ranges) {
    double largest = 0;
    double smallest = std::numeric_limits<double>::infinity();
    for (const double r : ranges) {
        if (r <= 0) continue;
        largest = std::max(largest, r);
        smallest = std::min(smallest, r);
    }
    return largest > 0 ? largest / smallest : 1.0;
}

// One equalization of the pair; returns the largest |log s_c| applied.
double equalize_pair(ConvCopy& first, ConvCopy& second) {
    const std::vector<double> r1 = filter_ranges(first);
    const std::vector<double> r2 = input_channel_ranges(second);
    const std::size_t channels = first.filters;
    double largest_step = 0;
    for (std::size_t c = 0; c < channels; ++c) {
        // A channel that is all zeros on one side carries nothing to balance.
        if (r1[c] <= 0 || r2[c] <= 0) continue;
        const double s = std::sqrt(r1[c] / r2[c]);
        largest_step = std::max(largest_step, std::fabs(std::log(s)));
        for (std::size_t k = 0; k < first.per_filter(); ++k) first.weights[c * first.per_filter() + k] /= s;
        first.biases[c] /= s;
        for (std::size_t f = 0; f < second.filters; ++f) {
            double* w = second.weights.data() + (f * channels + c) * second.taps;
            for (std::size_t k = 0; k < second.taps; ++k) w[k] *= s;
        }
    }
    return largest_step;
}

}  // namespace

std::vector<EqualizedPair> equalize_conv_ranges(Network& network) {
    if (!network.weights_loaded) throw Error(network.cfg_path + ": equalization needs the weights loaded");
    std::vector<EqualizedPair> pairs;
    for (const Layer& layer : network.layers) {
        if (layer.type == LayerType::Convolutional && layer.conv().batch_normalize &&
            !layer.conv().bn_folded()) {
            throw Error(network.cfg_path + ": layer " + std::to_string(layer.index) +
                        ": equalization needs batch-norm folded into the weights (fold_batchnorm)");
        }
        const int partner = equalizable_partner(network, layer.index);
        if (partner < 0) continue;
        EqualizedPair pair;
        pair.first = layer.index;
        pair.second = partner;
        pair.first_ratio_before = range_ratio(filter_ranges(ConvCopy(layer.conv())));
        pairs.push_back(pair);
    }
    std::map<int, ConvCopy> copies;  // every conv of a pair, by layer index
    for (const EqualizedPair& pair : pairs) {
        for (const int index : {pair.first, pair.second})
            copies.try_emplace(index, network.layers[static_cast<std::size_t>(index)].conv());
    }
    // A conv can be the second of one pair and the first of the next, so the pairs pull on each other:
    // sweep until the scales settle.
    constexpr int kMaxSweeps = 100;
    constexpr double kSettled = 1e-4;
    for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
        double largest_step = 0;
        for (const EqualizedPair& pair : pairs)
            largest_step =
                std::max(largest_step, equalize_pair(copies.at(pair.first), copies.at(pair.second)));
        if (largest_step < kSettled) break;
    }
    for (const auto& [index, copy] : copies)
        copy.store(network.layers[static_cast<std::size_t>(index)].conv());
    for (EqualizedPair& pair : pairs)
        pair.first_ratio_after = range_ratio(filter_ranges(copies.at(pair.first)));
    return pairs;
}

}  // namespace fpgacnn

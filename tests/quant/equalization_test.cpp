// Cross-layer equalization (fpgacnn/equalization.hpp): which pairs qualify, that the network computes
// the same afterwards, and that the ranges end balanced.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "fpgacnn/equalization.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_engine.hpp"
#include "quant_test_support.hpp"

namespace fpgacnn {
namespace {

class Equalization : public ::testing::Test {
protected:
    void SetUp() override {
        cfg_ = test::write_tiny_cfg(test::scratch_dir("equalization"));
        network_ = test::tiny_network(cfg_);
        // Unbalance conv 0's filters, so that there is something to equalize: 1x, 10x, 1/10x, ...
        ConvParams& conv = network_.layers[0].conv();
        const std::size_t per_filter = conv.weights.size() / static_cast<std::size_t>(conv.filters);
        for (std::size_t f = 0; f < static_cast<std::size_t>(conv.filters); ++f) {
            const float scale = f % 3 == 1 ? 10.0f : f % 3 == 2 ? 0.1f : 1.0f;
            for (std::size_t k = 0; k < per_filter; ++k) conv.weights[f * per_filter + k] *= scale;
            conv.biases[f] *= scale;
        }
    }

    std::vector<std::vector<float>> run_every_layer(const Network& network) const {
        std::mt19937 random(3);
        std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
        std::vector<float> input(network.input.size());
        for (float& v : input) v = pixel(random);
        FloatEngine engine(network);
        engine.run(input.data());
        std::vector<std::vector<float>> outputs;
        for (std::size_t i = 0; i < network.layers.size(); ++i)
            outputs.push_back(engine.layer_output(static_cast<int>(i)));
        return outputs;
    }

    std::string cfg_;
    Network network_;
};

// max |w| of filter f of `conv`, and of the weights of `conv` that read input channel c.
double filter_range(const ConvParams& conv, std::size_t f) {
    const std::size_t per_filter = conv.weights.size() / static_cast<std::size_t>(conv.filters);
    double range = 0;
    for (std::size_t k = 0; k < per_filter; ++k)
        range = std::max(range, std::fabs(double{conv.weights[f * per_filter + k]}));
    return range;
}

double input_channel_range(const ConvParams& conv, std::size_t c, std::size_t channels) {
    const auto taps = static_cast<std::size_t>(conv.size * conv.size);
    double range = 0;
    for (std::size_t f = 0; f < static_cast<std::size_t>(conv.filters); ++f) {
        for (std::size_t k = 0; k < taps; ++k)
            range = std::max(range, std::fabs(double{conv.weights[(f * channels + c) * taps + k]}));
    }
    return range;
}

TEST_F(Equalization, OnlyAConvReadByTheNextConvThroughMaxpoolsIsPaired) {
    // The tiny cfg: conv 0 -> maxpool 1 -> conv 2, which route 5 also reads; conv 4 feeds route 7; conv 8
    // the region. Only (0, 2) qualifies.
    const Network before = network_;
    const std::vector<EqualizedPair> pairs = equalize_conv_ranges(network_);
    ASSERT_EQ(pairs.size(), 1u);
    EXPECT_EQ(pairs[0].first, 0);
    EXPECT_EQ(pairs[0].second, 2);
    EXPECT_NE(network_.layers[0].conv().weights, before.layers[0].conv().weights);
    EXPECT_NE(network_.layers[2].conv().weights, before.layers[2].conv().weights);
    EXPECT_EQ(network_.layers[2].conv().biases,
              before.layers[2].conv().biases);  // its input scaled, not its output
    for (const int untouched : {4, 8}) {
        EXPECT_EQ(network_.layers[static_cast<std::size_t>(untouched)].conv().weights,
                  before.layers[static_cast<std::size_t>(untouched)].conv().weights)
            << "conv " << untouched;
    }
}

TEST_F(Equalization, TheNetworkComputesTheSame) {
    const std::vector<std::vector<float>> before = run_every_layer(network_);
    equalize_conv_ranges(network_);
    const std::vector<std::vector<float>> after = run_every_layer(network_);
    // Conv 0 and maxpool 1 carry the rescaled channels; from conv 2 on every output is the same.
    for (std::size_t i = 2; i < before.size(); ++i) {
        ASSERT_EQ(before[i].size(), after[i].size());
        double largest = 0;
        double difference = 0;
        for (std::size_t k = 0; k < before[i].size(); ++k) {
            largest = std::max(largest, std::fabs(double{before[i][k]}));
            difference = std::max(difference, std::fabs(double{before[i][k]} - after[i][k]));
        }
        EXPECT_LE(difference, 1e-5 * std::max(largest, 1.0)) << "layer " << i;
    }
    EXPECT_NE(before[0], after[0]);  // the rescaling did happen
}

TEST_F(Equalization, BothSidesOfAChannelEndWithTheSameRange) {
    const std::vector<EqualizedPair> pairs = equalize_conv_ranges(network_);
    const ConvParams& first = network_.layers[0].conv();
    const ConvParams& second = network_.layers[2].conv();
    const auto channels = static_cast<std::size_t>(first.filters);
    for (std::size_t c = 0; c < channels; ++c) {
        EXPECT_NEAR(filter_range(first, c), input_channel_range(second, c, channels),
                    1e-4 * filter_range(first, c))
            << "channel " << c;
    }
    // The 100x spread made in SetUp is gone.
    EXPECT_GE(pairs[0].first_ratio_before, 50.0);
    EXPECT_LT(pairs[0].first_ratio_after, pairs[0].first_ratio_before / 10);
}

TEST_F(Equalization, AnActivationThatDoesNotCommuteWithScalingIsLeftAlone) {
    network_.layers[0].conv().activation = Activation::Logistic;
    const Network before = network_;
    EXPECT_TRUE(equalize_conv_ranges(network_).empty());
    EXPECT_EQ(network_.layers[0].conv().weights, before.layers[0].conv().weights);
}

TEST_F(Equalization, NeedsFoldedWeights) {
    Network unfolded = load_darknet_cfg(cfg_);
    EXPECT_THROW(equalize_conv_ranges(unfolded), Error);  // no weights
    fill_synthetic_weights(unfolded, 7);                  // conv 0 has batch_normalize=1, not folded
    try {
        equalize_conv_ranges(unfolded);
        FAIL() << "an unfolded batch-norm was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("fold_batchnorm"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace fpgacnn

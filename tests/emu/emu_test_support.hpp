// Helpers for the emu tests: a naive quantization (fixed activation exponents, weight / bias
// exponents from the largest magnitude) that satisfies the exponent rules without calibration, and
// deterministic inputs.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn::test {

inline constexpr int kActivationQ = 11;  // +-16 in steps of 1/2048
inline constexpr int kInputQ = 14;

/// The largest exponent at which max |v| still fits int16, within the contract's range.
inline int fitting_exponent(const std::vector<float>& values) {
    float largest = 0;
    for (float v : values) largest = std::max(largest, std::fabs(v));
    if (largest == 0) return arith::kMaxExponent;
    const int q = static_cast<int>(std::floor(std::log2(32767.0 / largest)));
    return std::clamp(q, arith::kMinExponent, arith::kMaxExponent);
}

inline QuantizedNetwork naive_quantize(const Network& network) {
    QuantizedNetwork q;
    q.network = network;
    q.input_q = kInputQ;
    q.layers.resize(network.layers.size());
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        QuantizedLayer& ql = q.layers[i];
        if (layer.type == LayerType::Route) {
            ql.input_q = q.layers[static_cast<std::size_t>(layer.route().inputs.front())].output_q;
        } else {
            ql.input_q = i == 0 ? q.input_q : q.layers[i - 1].output_q;
        }
        ql.output_q = ql.input_q;
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& conv = layer.conv();
        ql.output_q = kActivationQ;
        ql.weight_q =
            std::min(fitting_exponent(conv.weights), arith::kModelMaxOutputShift + kActivationQ - ql.input_q);
        const int acc_q = ql.weight_q + ql.input_q;
        ql.bias_q = std::clamp(fitting_exponent(conv.biases), acc_q - arith::kModelMaxBiasShift, acc_q);
        for (float w : conv.weights) ql.weights.push_back(arith::quantize(w, ql.weight_q));
        for (float b : conv.biases) ql.biases.push_back(arith::quantize(b, ql.bias_q));
    }
    return q;
}

/// A smooth deterministic "image" in [0, 1], quantized at the input exponent.
inline std::vector<int16_t> pattern_input(const TensorShape& shape, int q, int seed = 0) {
    std::vector<int16_t> input(shape.size());
    std::size_t i = 0;
    for (int c = 0; c < shape.c; ++c)
        for (int y = 0; y < shape.h; ++y)
            for (int x = 0; x < shape.w; ++x)
                input[i++] =
                    arith::quantize(0.5f + 0.45f * std::sin(0.07f * x * (c + 1) + 0.05f * y + 0.9f * seed) *
                                               std::cos(0.11f * y - 0.03f * x * c),
                                    q);
    return input;
}

/// Index of the first difference, -1 when equal (sizes must match).
inline long first_difference(const std::vector<int16_t>& a, const std::vector<int16_t>& b) {
    if (a.size() != b.size()) return 0;
    const auto mismatch = std::mismatch(a.begin(), a.end(), b.begin());
    return mismatch.first == a.end() ? -1 : static_cast<long>(mismatch.first - a.begin());
}

}  // namespace fpgacnn::test

#include <fstream>

#include "fpgacnn/darknet.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

/// The network of cfg `text` (written to the scratch folder as `name`.cfg) with synthetic weights,
/// batch-norm folded.
inline Network synthetic_network(const std::string& name, const std::string& text) {
    const std::string path = scratch_dir("emu_" + name + "_network") + "/" + name + ".cfg";
    std::ofstream(path) << text;
    Network network = load_darknet_cfg(path);
    fill_synthetic_weights(network, 7);
    fold_batchnorm(network);
    return network;
}

/// A small network with every layer kind the kernel runs: 3x3 and 1x1 convs, 2/2 and 2/1 maxpools,
/// a single-input route, reorg and a two-input route (the yolov2 passthrough in miniature).
inline Network small_test_network() {
    return synthetic_network(
        "small",
        "[net]\nwidth=24\nheight=20\nchannels=3\n\n"
        "[convolutional]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"   // 0
        "[maxpool]\nsize=2\nstride=2\n\n"                                              // 1
        "[convolutional]\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"   // 2
        "[maxpool]\nsize=2\nstride=2\n\n"                                              // 3
        "[convolutional]\nfilters=64\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"   // 4
        "[route]\nlayers=-3\n\n"                                                       // 5
        "[convolutional]\nfilters=8\nsize=1\nstride=1\npad=1\nactivation=leaky\n\n"    // 6
        "[reorg]\nstride=2\n\n"                                                        // 7
        "[route]\nlayers=-1,-4\n\n"                                                    // 8
        "[convolutional]\nfilters=20\nsize=3\nstride=1\npad=1\nactivation=linear\n\n"  // 9
        "[maxpool]\nsize=2\nstride=1\n");                                              // 10
}

/// small_test_network() quantized once per process (naive exponents), shared by the device tests.
inline std::shared_ptr<const QuantizedNetwork> small_quantized() {
    static const auto network =
        std::make_shared<const QuantizedNetwork>(naive_quantize(small_test_network()));
    return network;
}

}  // namespace fpgacnn::test

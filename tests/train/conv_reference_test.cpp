// The training conv against references of its own (no darknet): a direct loop for the 1x1 stride-2
// layer darknet gets wrong, and the adjoint identities <conv(x), d> = <x, input delta> = <W, dW> that
// any correct backward pass satisfies, on 3x3 and 5x5 at stride 1 and 2.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "train/conv_train.hpp"
#include "train_test_values.hpp"

namespace fpgacnn::train {
namespace {

/// A one-conv network (linear, no batch-norm, zero biases) with random weights.
Layer conv_layer(int channels, int height, int width, int filters, int size, int stride, unsigned seed) {
    const std::string cfg = "[net]\nwidth=" + std::to_string(width) + "\nheight=" + std::to_string(height) +
                            "\nchannels=" + std::to_string(channels) +
                            "\n[convolutional]\nfilters=" + std::to_string(filters) +
                            "\nsize=" + std::to_string(size) + "\nstride=" + std::to_string(stride) +
                            "\npad=1\nactivation=linear\n";
    Layer layer = parse_darknet_cfg(cfg, "conv.cfg").layers.at(0);
    ConvParams& conv = layer.conv();
    conv.weights = random_values(static_cast<std::size_t>(filters) * channels * size * size, seed);
    conv.biases.assign(filters, 0.0f);
    return layer;
}

struct ConvRun {
    std::vector<float> output;
    std::vector<float> input_delta;
    std::vector<float> weight_gradient;
};

ConvRun run(Layer& layer, int batch, const std::vector<float>& input, const std::vector<float>& delta) {
    ConvTrainState state = make_conv_train_state(layer);
    std::vector<float> workspace(conv_train_workspace_floats(layer));
    ConvRun result;
    result.output.assign(layer.output.size() * batch, 0.0f);
    conv_forward_train(layer, batch, input.data(), result.output.data(), workspace.data(), state);
    std::vector<float> d = delta;
    result.input_delta.assign(input.size(), 0.0f);
    conv_backward(layer, batch, input.data(), result.output.data(), d.data(), result.input_delta.data(),
                  workspace.data(), state);
    result.weight_gradient = state.gradients.weight_updates;
    return result;
}

TEST(ConvTrainingReference, OneByOneStrideTwoSamplesEveryOtherPixel) {
    const int batch = 2;
    const int channels = 3;
    const int filters = 4;
    Layer layer = conv_layer(channels, 9, 8, filters, 1, 2, 5);
    ASSERT_EQ(layer.output.h, 5);
    ASSERT_EQ(layer.output.w, 4);
    const TensorShape in = layer.input;
    const TensorShape out = layer.output;
    const std::vector<float> input = random_values(in.size() * batch, 6);
    const std::vector<float> delta = random_values(out.size() * batch, 7);
    const ConvRun result = run(layer, batch, input, delta);
    const std::vector<float>& w = layer.conv().weights;

    // Direct loops: y[m](i, j) = sum_c W[m][c] x[c](2i, 2j), and their transposes.
    std::vector<double> output(out.size() * batch, 0.0);
    std::vector<double> input_delta(in.size() * batch, 0.0);
    std::vector<double> weight_gradient(w.size(), 0.0);
    for (int b = 0; b < batch; ++b) {
        for (int m = 0; m < filters; ++m) {
            for (int i = 0; i < out.h; ++i) {
                for (int j = 0; j < out.w; ++j) {
                    const std::size_t o =
                        ((static_cast<std::size_t>(b) * filters + m) * out.h + i) * out.w + j;
                    for (int c = 0; c < channels; ++c) {
                        const std::size_t x =
                            ((static_cast<std::size_t>(b) * channels + c) * in.h + 2 * i) * in.w + 2 * j;
                        output[o] += static_cast<double>(w[m * channels + c]) * input[x];
                        input_delta[x] += static_cast<double>(w[m * channels + c]) * delta[o];
                        weight_gradient[m * channels + c] += static_cast<double>(delta[o]) * input[x];
                    }
                }
            }
        }
    }
    for (std::size_t k = 0; k < output.size(); ++k) EXPECT_NEAR(result.output[k], output[k], 1e-5) << k;
    for (std::size_t k = 0; k < input_delta.size(); ++k)
        EXPECT_NEAR(result.input_delta[k], input_delta[k], 1e-5) << k;
    for (std::size_t k = 0; k < weight_gradient.size(); ++k) {
        EXPECT_NEAR(result.weight_gradient[k], weight_gradient[k], 1e-4) << k;
    }
}

struct Shape {
    int size;
    int stride;
};

class ConvAdjoint : public ::testing::TestWithParam<Shape> {};

TEST_P(ConvAdjoint, BackwardIsTheTransposeOfForward) {
    const Shape shape = GetParam();
    const int batch = 2;
    Layer layer = conv_layer(3, 11, 10, 5, shape.size, shape.stride, 40 + shape.size);
    const std::vector<float> input = random_values(layer.input.size() * batch, 41);
    const std::vector<float> delta = random_values(layer.output.size() * batch, 42);
    const ConvRun result = run(layer, batch, input, delta);
    const double forward = inner(result.output, delta);
    const double scale = std::max(1.0, std::fabs(forward));
    EXPECT_NEAR(inner(input, result.input_delta), forward, 1e-5 * scale * 10);
    EXPECT_NEAR(inner(layer.conv().weights, result.weight_gradient), forward, 1e-5 * scale * 10);
}

INSTANTIATE_TEST_SUITE_P(Shapes, ConvAdjoint,
                         ::testing::Values(Shape{3, 1}, Shape{3, 2}, Shape{5, 1}, Shape{5, 2}, Shape{1, 1},
                                           Shape{1, 2}),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                             return "k" + std::to_string(info.param.size) + "_s" +
                                    std::to_string(info.param.stride);
                         });

}  // namespace
}  // namespace fpgacnn::train

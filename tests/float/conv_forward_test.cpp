#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <random>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"
#include "naive_ops.hpp"

namespace fpgacnn::test {
namespace {

struct ConvCase {
    TensorShape input;
    int filters, size, stride, pad;
    Activation activation;
};

void PrintTo(const ConvCase& p, std::ostream* os) {
    *os << p.input.c << "x" << p.input.h << "x" << p.input.w << " filters=" << p.filters << " size=" << p.size
        << " stride=" << p.stride << " pad=" << p.pad;
}

class ConvForwardTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvForwardTest, MatchesDirectConvolution) {
    const ConvCase& p = GetParam();
    const Layer layer = make_conv_layer(0, p.input, p.filters, p.size, p.stride, p.pad, p.activation, 7);
    const std::vector<float> input = random_values(p.input.size(), 11);
    std::vector<float> workspace(im2col_workspace_floats(layer));
    std::vector<float> output(layer.output.size(), -123.0f);

    conv_forward(layer, input.data(), output.data(), workspace.data());

    EXPECT_LT(max_relative_diff(output, naive_conv(layer, input)), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(
    KernelStridePad, ConvForwardTest,
    ::testing::Values(ConvCase{{3, 7, 9}, 5, 3, 1, 1, Activation::Leaky},      // same-size 3x3
                      ConvCase{{4, 9, 11}, 6, 3, 2, 1, Activation::Leaky},     // 3x3 stride 2, odd size
                      ConvCase{{3, 8, 7}, 4, 3, 1, 0, Activation::Linear},     // valid 3x3
                      ConvCase{{2, 11, 9}, 3, 3, 2, 0, Activation::Leaky},     // valid 3x3 stride 2
                      ConvCase{{6, 5, 7}, 9, 1, 1, 0, Activation::Linear},     // 1x1: no im2col
                      ConvCase{{6, 5, 7}, 4, 1, 1, 0, Activation::Leaky},      // 1x1 leaky
                      ConvCase{{3, 7, 9}, 2, 1, 2, 0, Activation::Leaky},      // 1x1 stride 2: im2col
                      ConvCase{{2, 6, 5}, 3, 5, 1, 2, Activation::Leaky},      // 5x5, pad wider than 1
                      ConvCase{{3, 2, 3}, 2, 3, 1, 1, Activation::Linear},     // image smaller than kernel
                      ConvCase{{8, 128, 96}, 32, 3, 1, 1, Activation::Leaky},  // big enough to use threads
                      // Column matrices over 8 MB: unrolled in bands of output rows, last band partial.
                      ConvCase{{32, 100, 160}, 4, 3, 1, 1, Activation::Leaky},
                      ConvCase{{64, 130, 130}, 4, 3, 2, 1, Activation::Linear}));

TEST(ConvForward, PointwiseConvolutionNeedsNoWorkspace) {
    const Layer pointwise = make_conv_layer(0, {8, 5, 5}, 4, 1, 1, 0, Activation::Leaky, 1);
    const Layer spatial = make_conv_layer(0, {8, 5, 5}, 4, 3, 1, 1, Activation::Leaky, 1);
    EXPECT_EQ(im2col_workspace_floats(pointwise), 0u);
    EXPECT_EQ(im2col_workspace_floats(spatial), 8u * 3 * 3 * 5 * 5);
}

TEST(ConvForward, LeakyUsesDarknetSlope) {
    Layer layer = make_conv_layer(0, {1, 1, 1}, 2, 1, 1, 0, Activation::Leaky, 1);
    layer.conv().weights = {1.0f, -1.0f};
    layer.conv().biases = {0.0f, 0.0f};
    const float input = 3.0f;
    float output[2] = {};
    conv_forward(layer, &input, output, nullptr);
    EXPECT_FLOAT_EQ(output[0], 3.0f);
    EXPECT_FLOAT_EQ(output[1], -0.3f);
}

TEST(ConvForward, LeakyIsBitIdenticalToDarknetsDoubleExpression) {
    // 1x1 conv with weight 1 and bias b: output = leaky(x + b), no sgemm rounding involved.
    // darknet computes the slope as (float)(.1 * (double)v), which differs from 0.1f * v in the
    // last bit for about one negative float in five.
    const int pixels = 4099;  // not a multiple of any vector width
    Layer layer = make_conv_layer(0, {1, 1, pixels}, 1, 1, 1, 0, Activation::Leaky, 1);
    layer.conv().weights = {1.0f};
    layer.conv().biases = {0.25f};
    std::mt19937 generator(3);
    std::uniform_real_distribution<float> exponent(-30.0f, 30.0f);
    std::vector<float> input(pixels);
    for (float& x : input) x = (generator() % 4 == 0 ? 1.0f : -1.0f) * std::exp2(exponent(generator));
    std::vector<float> output(pixels);
    conv_forward(layer, input.data(), output.data(), nullptr);
    int differs_from_float_slope = 0;
    for (int i = 0; i < pixels; ++i) {
        const float v = input[i] + 0.25f;
        const float expected = v > 0 ? v : static_cast<float>(0.1 * static_cast<double>(v));
        ASSERT_EQ(output[i], expected) << "input " << input[i];
        differs_from_float_slope += expected != (v > 0 ? v : 0.1f * v);
    }
    EXPECT_GT(differs_from_float_slope, 0) << "the test values do not tell the two slopes apart";
}

TEST(ConvForward, RejectsUnfoldedBatchnorm) {
    Layer layer = make_conv_layer(4, {2, 3, 3}, 2, 3, 1, 1, Activation::Leaky, 1);
    layer.conv().batch_normalize = true;
    layer.conv().bn_scales = {1.0f, 1.0f};
    layer.conv().bn_mean = {0.0f, 0.0f};
    layer.conv().bn_variance = {1.0f, 1.0f};
    const std::vector<float> input(layer.input.size());
    std::vector<float> workspace(im2col_workspace_floats(layer)), output(layer.output.size());
    try {
        conv_forward(layer, input.data(), output.data(), workspace.data());
        FAIL() << "expected fpgacnn::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 4"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("fold_batchnorm"), std::string::npos) << e.what();
    }
}

TEST(ConvForward, AcceptsFoldedBatchnorm) {
    Layer layer = make_conv_layer(0, {2, 3, 3}, 2, 3, 1, 1, Activation::Leaky, 1);
    layer.conv().batch_normalize = true;  // folded: bn_* empty
    const std::vector<float> input = random_values(layer.input.size(), 3);
    std::vector<float> workspace(im2col_workspace_floats(layer)), output(layer.output.size());
    conv_forward(layer, input.data(), output.data(), workspace.data());
    EXPECT_LT(max_relative_diff(output, naive_conv(layer, input)), 1e-5);
}

TEST(ConvForward, RejectsMissingOrMisSizedWeights) {
    Layer missing = make_conv_layer(0, {2, 3, 3}, 2, 3, 1, 1, Activation::Leaky, 1);
    missing.conv().weights.clear();
    Layer short_biases = make_conv_layer(0, {2, 3, 3}, 2, 3, 1, 1, Activation::Leaky, 1);
    short_biases.conv().biases.pop_back();
    const std::vector<float> input(18);
    std::vector<float> workspace(200), output(18);
    EXPECT_THROW(conv_forward(missing, input.data(), output.data(), workspace.data()), Error);
    EXPECT_THROW(conv_forward(short_biases, input.data(), output.data(), workspace.data()), Error);
}

TEST(ConvForward, RejectsInconsistentOutputShape) {
    Layer layer = make_conv_layer(0, {2, 5, 5}, 2, 3, 1, 1, Activation::Leaky, 1);
    layer.output.w = 4;
    const std::vector<float> input(layer.input.size());
    std::vector<float> workspace(1000), output(1000);
    EXPECT_THROW(conv_forward(layer, input.data(), output.data(), workspace.data()), Error);
}

}  // namespace
}  // namespace fpgacnn::test

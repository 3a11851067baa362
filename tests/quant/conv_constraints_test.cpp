// The contract's constraints on a conv layer's exponents, on hand-made one-layer networks whose
// statistics are known exactly: bias_shift in [0, 15], accumulator headroom, output_shift limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_engine.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "quant_test_support.hpp"

namespace fpgacnn {
namespace {

using test::constant_image;
using test::single_conv_network;

CalibrationResult calibrate_on_constant(const Network& network, float value,
                                        CalibrationOptions options = {}) {
    return calibrate_letterboxed(network, {constant_image(network.input, value)}, options);
}

int bias_shift(const QuantizedLayer& q) { return q.weight_q + q.input_q - q.bias_q; }
int output_shift(const QuantizedLayer& q) { return q.weight_q + q.input_q - q.output_q; }

bool any_note_contains(const CalibrationResult& result, const std::string& text) {
    return std::any_of(result.notes.begin(), result.notes.end(),
                       [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

// Largest |float - int16| of the single layer's output relative to the float's largest |value|.
double relative_error(const CalibrationResult& result, float input_value) {
    const QuantizedNetwork& quantized = result.quantized;
    const Image image = constant_image(quantized.network.input, input_value);
    FloatEngine reference(quantized.network);
    const std::vector<float>& expected = reference.run(image.data.data());
    std::vector<int16_t> input(image.data.size());
    quantize_tensor(image.data.data(), image.data.size(), quantized.input_q, input.data());
    Int16Engine engine(quantized, best_int16_isa(), 1);
    const std::vector<int16_t>& raw = engine.run(input.data());
    std::vector<float> got(raw.size());
    dequantize_tensor(raw.data(), raw.size(), quantized.layers[0].output_q, got.data());
    double max_error = 0;
    double max_value = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        max_error = std::max(max_error, std::fabs(static_cast<double>(expected[i]) - got[i]));
        max_value = std::max(max_value, std::fabs(static_cast<double>(expected[i])));
    }
    return max_error / max_value;
}

TEST(ConvConstraints, BiasShiftIsCappedAt15WhenTheBiasDwarfsTheWeights) {
    // Weights of 1e-3 want Qw = 24; a bias of 100 wants Qb = 8: bias_shift would be 30.
    const Network network =
        single_conv_network({3, 2, 2}, 1, 1, Activation::Linear, {1e-3f, 1e-3f, 1e-3f}, {100.0f});
    CalibrationOptions no_headroom_limit;
    no_headroom_limit.accumulator_margin_bits = -30;  // isolate the bias rule from the accumulator rule
    const CalibrationResult result = calibrate_on_constant(network, 1.0f, no_headroom_limit);
    const QuantizedLayer& q = result.quantized.layers[0];
    EXPECT_EQ(q.input_q, 14);
    EXPECT_EQ(q.weight_q, 24);
    EXPECT_EQ(bias_shift(q), arith::kModelMaxBiasShift);
    EXPECT_EQ(q.bias_q, 23);
}

TEST(ConvConstraints, BiasExponentNeverExceedsTheAccumulators) {
    // Weights of 100 give Qw = 8, Qacc = 22; a bias of 1e-3 would like Qb = 24 > Qacc.
    const Network network =
        single_conv_network({3, 2, 2}, 1, 1, Activation::Linear, {100.0f, -50.0f, 20.0f}, {1e-3f});
    const CalibrationResult result = calibrate_on_constant(network, 0.5f);
    const QuantizedLayer& q = result.quantized.layers[0];
    EXPECT_EQ(q.weight_q, 8);
    EXPECT_EQ(q.bias_q, 22);
    EXPECT_EQ(bias_shift(q), arith::kModelMinBiasShift);
}

TEST(ConvConstraints, WeightExponentIsLoweredUntilTheAccumulatorHasHeadroom) {
    // 64 channels x 3x3 taps of 0.9 on an all-ones image: 518.4 at the centre. At Qw = 15 and
    // Qin = 14 that is 2^38 in the accumulator: it would wrap. 1 bit of headroom allows Qw = 6.
    const Network network =
        single_conv_network({64, 5, 5}, 1, 3, Activation::Leaky, std::vector<float>(64 * 9, 0.9f), {0.0f});
    CalibrationOptions one_bit;
    one_bit.accumulator_margin_bits = 1;
    const CalibrationResult result = calibrate_on_constant(network, 1.0f, one_bit);
    const QuantizedLayer& q = result.quantized.layers[0];
    const LayerCalibration& report = result.layers[0];
    EXPECT_EQ(q.weight_q, 6);
    EXPECT_EQ(report.weight_q_lowered, 9);
    EXPECT_NEAR(report.max_abs_accumulator, 518.4, 0.01);  // float sums of 0.9f
    EXPECT_LE(report.accumulator_bits, 30.0);
    EXPECT_GT(report.accumulator_bits, 29.0);
    EXPECT_TRUE(
        any_note_contains(result, "layer 0 (conv): weight exponent 15 -> 6 for accumulator headroom"));
    EXPECT_TRUE(any_note_contains(result, "518.4"));
    EXPECT_LT(relative_error(result, 1.0f), 0.01);  // weights at 2^-6 steps: 0.7 % off at most
}

TEST(ConvConstraints, WithoutTheHeadroomRuleTheAccumulatorWraps) {
    // The negative control of the test above: the rule is what keeps the int16 result sane.
    const Network network =
        single_conv_network({64, 5, 5}, 1, 3, Activation::Leaky, std::vector<float>(64 * 9, 0.9f), {0.0f});
    CalibrationOptions reckless;
    reckless.accumulator_margin_bits = -10;
    const CalibrationResult result = calibrate_on_constant(network, 1.0f, reckless);
    EXPECT_EQ(result.quantized.layers[0].weight_q, 15);
    EXPECT_GT(result.layers[0].accumulator_bits, 31.0);
    EXPECT_GT(relative_error(result, 1.0f), 0.5);
}

TEST(ConvConstraints, OutputExponentIsCappedToKeepOutputShiftInRange) {
    // Huge cancelling weights (Qw = -7, Qacc = 7) and a tiny result (the bias, 1e-6, wants Qout = 24):
    // output_shift would be -17 < -15, so the output exponent is capped at 22.
    const Network network =
        single_conv_network({3, 2, 2}, 1, 1, Activation::Linear, {4e6f, -4e6f, 0.0f}, {1e-6f});
    CalibrationOptions no_margin;
    no_margin.activation_margin_bits = 0;
    const CalibrationResult result = calibrate_on_constant(network, 1.0f, no_margin);
    const QuantizedLayer& q = result.quantized.layers[0];
    EXPECT_EQ(q.weight_q, -7);
    EXPECT_EQ(result.layers[0].preferred_output_q, 24);
    EXPECT_EQ(q.output_q, 22);
    EXPECT_EQ(output_shift(q), arith::kModelMinOutputShift);
    EXPECT_TRUE(any_note_contains(result, "capped at 22"));
    EXPECT_NO_THROW(Int16Engine(result.quantized, best_int16_isa(), 1));
}

TEST(ConvConstraints, ActivationMarginLowersTheOutputExponentBitByBit) {
    // The output is 0.5 everywhere: it fits at Q15 (16384) exactly; each margin bit takes one off.
    const Network network =
        single_conv_network({3, 2, 2}, 1, 1, Activation::Linear, {1.0f, 0.0f, 0.0f}, {0.0f});
    for (int margin = 0; margin <= 3; ++margin) {
        CalibrationOptions options;
        options.activation_margin_bits = margin;
        const CalibrationResult result = calibrate_on_constant(network, 0.5f, options);
        EXPECT_EQ(result.quantized.layers[0].output_q, 15 - margin) << "margin " << margin;
        EXPECT_EQ(result.layers[0].preferred_output_q, 15 - margin);
        EXPECT_EQ(result.options.activation_margin_bits, margin);
    }
    CalibrationOptions bad;
    bad.activation_margin_bits = -1;
    EXPECT_THROW(calibrate_on_constant(network, 0.5f, bad), Error);
}

TEST(ConvConstraints, RejectsNonFiniteWeightsAndUnfoldedBatchNorm) {
    Network nan_weights = single_conv_network({3, 2, 2}, 1, 1, Activation::Linear, {NAN, 0.0f, 0.0f}, {0.0f});
    EXPECT_THROW(calibrate_on_constant(nan_weights, 1.0f), Error);

    Network unfolded = single_conv_network({3, 2, 2}, 1, 1, Activation::Linear, {1.0f, 0.0f, 0.0f}, {0.0f});
    ConvParams& conv = unfolded.layers[0].conv();
    conv.batch_normalize = true;
    conv.bn_scales = {1.0f};
    conv.bn_mean = {0.0f};
    conv.bn_variance = {1.0f};
    try {
        calibrate_on_constant(unfolded, 1.0f);
        FAIL() << "expected an Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("batch-norm"), std::string::npos) << e.what();
    }

    Network no_weights = single_conv_network({3, 2, 2}, 1, 1, Activation::Linear, {1.0f, 0.0f, 0.0f}, {0.0f});
    no_weights.weights_loaded = false;
    EXPECT_THROW(calibrate_on_constant(no_weights, 1.0f), Error);
}

TEST(ConvConstraints, RejectsImagesOfTheWrongSizeAndBadOptions) {
    const Network network =
        single_conv_network({3, 4, 4}, 1, 1, Activation::Linear, {1.0f, 0.0f, 0.0f}, {0.0f});
    EXPECT_THROW(calibrate_letterboxed(network, {constant_image({3, 4, 5}, 0.5f)}), Error);
    EXPECT_THROW(calibrate_letterboxed(network, {}), Error);
    CalibrationOptions bad;
    bad.percentile = 0;
    EXPECT_THROW(calibrate_letterboxed(network, {constant_image({3, 4, 4}, 0.5f)}, bad), Error);
    EXPECT_THROW(calibrate(network, {"/nonexistent/image.jpg"}), Error);
}

}  // namespace
}  // namespace fpgacnn

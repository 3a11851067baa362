// darknet's Adam update (its GPU adam_update_gpu; the CPU library has none to compare against) checked
// against the formulas computed in double, over three updates so the bias correction and the moments'
// decay are both exercised.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "train/adam_update.hpp"
#include "train/training_options.hpp"

namespace fpgacnn::train {
namespace {

struct ReferenceArray {
    std::vector<double> values, m, v;
};

// One update of one array in double, as docs/darknet-semantics.md ("Adam") states it.
void reference_step(ReferenceArray& a, const std::vector<float>& gradient, const AdamStep& step) {
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        const double d = gradient[i] - double{step.decay} * step.images * a.values[i];
        a.m[i] = step.b1 * a.m[i] + (1 - double{step.b1}) * d;
        a.v[i] = step.b2 * a.v[i] + (1 - double{step.b2}) * d * d;
        const double mhat = a.m[i] / (1 - std::pow(double{step.b1}, static_cast<double>(step.t)));
        const double vhat = a.v[i] / (1 - std::pow(double{step.b2}, static_cast<double>(step.t)));
        a.values[i] += step.learning_rate * mhat / (std::sqrt(vhat) + step.eps);
    }
}

// B1, B2 and eps as darknet's parser defaults them (SolverOptions holds those).
AdamStep darknet_defaults() {
    const SolverOptions defaults;
    AdamStep step;
    step.b1 = defaults.b1;
    step.b2 = defaults.b2;
    step.eps = defaults.eps;
    return step;
}

std::vector<float> normal_values(std::mt19937& random, std::size_t count, float scale) {
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> values(count);
    for (float& value : values) value = normal(random);
    return values;
}

TEST(AdamUpdate, ThreeUpdatesFollowTheFormulas) {
    std::mt19937 random(11);
    ConvParams conv;
    conv.weights = normal_values(random, 54, 0.2f);
    conv.biases = normal_values(random, 3, 0.5f);
    conv.bn_scales = normal_values(random, 3, 1.0f);
    ConvGradients gradients;
    for (auto* moment : {&gradients.weight_m, &gradients.weight_v}) moment->assign(54, 0.0f);
    for (auto* moment : {&gradients.bias_m, &gradients.bias_v, &gradients.scale_m, &gradients.scale_v})
        moment->assign(3, 0.0f);
    ReferenceArray weights{
        {conv.weights.begin(), conv.weights.end()}, std::vector<double>(54), std::vector<double>(54)};
    ReferenceArray biases{
        {conv.biases.begin(), conv.biases.end()}, std::vector<double>(3), std::vector<double>(3)};
    ReferenceArray scales{
        {conv.bn_scales.begin(), conv.bn_scales.end()}, std::vector<double>(3), std::vector<double>(3)};
    AdamStep step = darknet_defaults();
    step.learning_rate = 0.01f;
    step.decay = 0.0005f;
    step.images = 8;
    for (std::uint64_t t = 1; t <= 3; ++t) {
        step.t = t;
        // Gradients summed over 8 images, of different scales per array (Adam's step is scale-free).
        gradients.weight_updates = normal_values(random, 54, 3.0f);
        gradients.bias_updates = normal_values(random, 3, 0.01f);
        gradients.scale_updates = normal_values(random, 3, 1.0f);
        reference_step(weights, gradients.weight_updates, step);
        reference_step(biases, gradients.bias_updates, step);
        reference_step(scales, gradients.scale_updates, step);
        adam_update(conv, gradients, step);
        for (const float d : gradients.weight_updates) ASSERT_EQ(d, 0.0f) << "the gradient is consumed";
        for (std::size_t i = 0; i < 54; ++i)
            ASSERT_NEAR(conv.weights[i], weights.values[i], 1e-6) << "weight " << i << ", t " << t;
        for (std::size_t i = 0; i < 3; ++i) {
            ASSERT_NEAR(conv.biases[i], biases.values[i], 1e-6) << "bias " << i << ", t " << t;
            ASSERT_NEAR(conv.bn_scales[i], scales.values[i], 1e-6) << "scale " << i << ", t " << t;
        }
    }
}

// Without batch-norm the scale arrays are empty and stay so.
TEST(AdamUpdate, LayerWithoutBatchNorm) {
    ConvParams conv;
    conv.weights = {0.5f, -0.25f};
    conv.biases = {0.1f};
    ConvGradients gradients;
    gradients.weight_updates = {1.0f, -100.0f};
    gradients.bias_updates = {0.001f};
    gradients.weight_m = gradients.weight_v = {0.0f, 0.0f};
    gradients.bias_m = gradients.bias_v = {0.0f};
    AdamStep step = darknet_defaults();
    step.learning_rate = 0.001f;
    adam_update(conv, gradients, step);
    // t = 1: mhat = d, vhat = d², so each moves by the rate in its gradient's direction.
    EXPECT_NEAR(conv.weights[0], 0.5f + 0.001f, 1e-7);
    EXPECT_NEAR(conv.weights[1], -0.25f - 0.001f, 1e-7);
    EXPECT_NEAR(conv.biases[0], 0.1f + 0.001f, 1e-6);
    EXPECT_TRUE(gradients.scale_m.empty());
}

}  // namespace
}  // namespace fpgacnn::train

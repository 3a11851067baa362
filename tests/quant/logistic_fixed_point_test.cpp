// A conv with activation=logistic between two fixed-point layers (docs/arithmetic.md, "Activations in
// fixed point"): the conv runs linear, the host dequantizes, applies darknet's logistic and requantizes
// at the conv's exponent. At int16: every ISA path bit-exact with scalar, the logistic layer's values
// in [0, 1] and close to the float path's, the layers after it too; fpgacnn-plan's table names the step.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/float_engine.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/vision.hpp"
#include "quant_test_support.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

const char* const kLogisticCfg =
    "[net]\nwidth=32\nheight=32\nchannels=3\n\n"
    "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n"
    "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=logistic\n\n"  // layer 1: mid-network
    "[maxpool]\nsize=2\nstride=2\n\n"
    "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=leaky\n\n"
    "[convolutional]\nfilters=10\nsize=1\nactivation=linear\n\n"
    "[avgpool]\n\n"
    "[softmax]\n";
constexpr int kLogisticLayer = 1;

TEST(LogisticFixedPoint, HostStepBetweenFixedPointLayersMatchesFloat) {
    Network network = parse_darknet_cfg(kLogisticCfg, "logistic.cfg");
    fill_synthetic_weights(network, 5);
    fold_batchnorm(network);
    std::vector<Image> images;
    for (const char* name : {"dog.jpg", "person.jpg"}) {
        images.push_back(letterbox_image(load_image(darknet_file(std::string("data/") + name)),
                                         network.input.w, network.input.h));
    }
    const QuantizedNetwork q = calibrate_letterboxed(network, {images[0]}, {}).quantized;
    const Image& image = images[1];
    std::vector<int16_t> input(image.data.size());
    quantize_tensor(image.data.data(), input.size(), q.input_q, input.data());
    Int16Engine scalar(q, Int16Isa::Scalar, 1);
    scalar.run(input.data());
    expect_every_isa_equals_scalar(q, input, scalar);
    FloatEngine reference(network);
    reference.run(image.data.data());
    for (std::size_t i = 0; i + 1 < network.layers.size(); ++i) {  // the softmax's int16 output is its input
        const std::vector<float>& expected = reference.layer_output(static_cast<int>(i));
        const std::vector<int16_t>& got = scalar.layer_output(static_cast<int>(i));
        std::vector<float> values(got.size());
        dequantize_tensor(got.data(), got.size(), q.layers[i].output_q, values.data());
        float max_abs = 0, max_error = 0;
        for (std::size_t k = 0; k < values.size(); ++k) {
            max_abs = std::max(max_abs, std::fabs(expected[k]));
            max_error = std::max(max_error, std::fabs(values[k] - expected[k]));
        }
        std::cout << "[ measured ] int16 layer " << i << " (" << layer_type_name(network.layers[i].type)
                  << "): max |error| " << max_error << " of max " << max_abs << "\n";
        EXPECT_LT(max_error, 0.002f * std::max(1.0f, max_abs)) << "layer " << i;
        if (static_cast<int>(i) == kLogisticLayer) {
            EXPECT_GE(*std::min_element(values.begin(), values.end()), 0.0f);
            EXPECT_LE(*std::max_element(values.begin(), values.end()), 1.0f);
        }
    }
    // fpgacnn-plan's table: the conv is a device command with the logistic as a host step after it.
    const NetworkPlan plan = plan_network(network, PlanOptions{});
    EXPECT_TRUE(plan.layers[kLogisticLayer].on_device && plan.layers[kLogisticLayer].on_host);
    EXPECT_THAT(format_plan_table(plan), testing::HasSubstr("logistic@host"));
}

}  // namespace
}  // namespace fpgacnn::test

// relu on the fixed-point paths (docs/arithmetic.md, "Activations in fixed point"): a small net of relu
// convs and a relu shortcut, calibrated on darknet's images, at int16, int8 and mixed widths: every ISA
// path bit-exact with the scalar one layer by layer, relu outputs never negative, and the dequantized
// outputs close to the float path's (whose relu is darknet's x*(x>0)).
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
#include "fpgacnn/vision.hpp"
#include "quant_test_support.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

const char* const kReluCfg =
    "[net]\nwidth=32\nheight=32\nchannels=3\n\n"
    "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=relu\n\n"
    "[maxpool]\nsize=2\nstride=2\n\n"
    "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=relu\n\n"
    "[convolutional]\nfilters=16\nsize=1\nactivation=relu\n\n"
    "[shortcut]\nfrom=-2\nactivation=relu\n\n"
    "[convolutional]\nfilters=6\nsize=1\nactivation=linear\n\n"
    "[yolo]\nmask=0\nanchors=4,4\nnum=1\nclasses=1\n";

// Layers whose activation is relu in kReluCfg.
const int kReluLayers[] = {0, 2, 3, 4};

struct ReluNet {
    Network network;
    std::vector<Image> images;
    ReluNet() {
        network = parse_darknet_cfg(kReluCfg, "relu.cfg");
        fill_synthetic_weights(network, 7);
        fold_batchnorm(network);
        for (const char* name : {"dog.jpg", "person.jpg", "eagle.jpg"}) {
            images.push_back(letterbox_image(load_image(darknet_file(std::string("data/") + name)),
                                             network.input.w, network.input.h));
        }
    }
};

const ReluNet& relu_net() {
    static const ReluNet net;
    return net;
}

// 16: every conv 16-bit; 8: every conv 8-bit; 0: mixed (8-bit weights and outputs on alternate convs).
QuantizedNetwork quantized(int bits) {
    const ReluNet& net = relu_net();
    CalibrationOptions options;
    if (bits == 8) options.widths = uniform_conv_widths(net.network, 8);
    if (bits == 0) {
        options.widths = uniform_conv_widths(net.network, 16);
        options.widths[2] = {8, 8};
        options.widths[5] = {8, 16};
    }
    const std::vector<Image> calibration(net.images.begin(), net.images.begin() + 2);
    return calibrate_letterboxed(net.network, calibration, options).quantized;
}

class ReluFixedPoint : public testing::TestWithParam<int> {};

TEST_P(ReluFixedPoint, EveryIsaIsBitExactWithScalarAndReluOutputsAreNeverNegative) {
    const QuantizedNetwork q = quantized(GetParam());
    const Image& image = relu_net().images[2];
    std::vector<int16_t> input(image.data.size());
    quantize_tensor(image.data.data(), input.size(), q.input_q, input.data());
    Int16Engine scalar(q, Int16Isa::Scalar, 1);
    scalar.run(input.data());
    for (const int i : kReluLayers) {
        const std::vector<int16_t>& out = scalar.layer_output(i);
        EXPECT_GE(*std::min_element(out.begin(), out.end()), 0) << "layer " << i;
        const auto zeros = std::count(out.begin(), out.end(), int16_t{0});
        // Synthetic weights are symmetric around 0: a linear conv would leave about half negative.
        EXPECT_GT(zeros, static_cast<long>(out.size() / 10)) << "layer " << i << ": relu zeroed too little";
    }
    expect_every_isa_equals_scalar(q, input, scalar);
    // Against the float path: every relu layer close to darknet's values (8-bit steps are 1/128 of a range).
    FloatEngine reference(relu_net().network);
    reference.run(image.data.data());
    for (const int i : kReluLayers) {
        const std::vector<float>& expected = reference.layer_output(i);
        const std::vector<int16_t>& got = scalar.layer_output(i);
        std::vector<float> values(got.size());
        dequantize_tensor(got.data(), got.size(), q.layers[static_cast<std::size_t>(i)].output_q,
                          values.data());
        float max_abs = 0, max_error = 0;
        for (std::size_t k = 0; k < values.size(); ++k) {
            max_abs = std::max(max_abs, std::fabs(expected[k]));
            max_error = std::max(max_error, std::fabs(values[k] - expected[k]));
        }
        std::cout << "bits " << GetParam() << " layer " << i << ": max |error| " << max_error << " of max "
                  << max_abs << "\n";
        // Measured (relative to the layer's max): int16 <= 4.2e-4, mixed <= 0.028, int8 <= 0.070.
        const float tolerance = GetParam() == 16 ? 0.002f : 0.1f;
        EXPECT_LT(max_error, tolerance * max_abs) << "layer " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Widths, ReluFixedPoint, testing::Values(16, 8, 0),
                         [](const testing::TestParamInfo<int>& param_info) {
                             return param_info.param == 0 ? std::string("mixed")
                                                          : "int" + std::to_string(param_info.param);
                         });

}  // namespace
}  // namespace fpgacnn::test

// Quantization-aware training's forward and backward (runtime/src/train/fake_quant.hpp): the
// fake-quantized forward IS the fixed-point engine's (dequantized, bit for bit, at int16, int8 and
// mixed widths), the straight-through gradients, and a QAT over-fit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "model/cfg_parser.hpp"
#include "train/fake_quant.hpp"
#include "train/float_trainer.hpp"
#include "train/region_loss.hpp"
#include "training_cfg_text.hpp"

namespace fpgacnn::train::fake_quant_test {
namespace {

// leaky, relu and linear convs, 3x3 and 1x1, a stride-2 conv, maxpool, route and reorg, a region.
std::string net_text() {
    return fpgacnn::test::training_net_section(2, 1, 16) + R"([convolutional]
filters=8
size=3
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
filters=16
size=3
stride=1
pad=1
activation=relu
[convolutional]
filters=8
size=3
stride=2
pad=1
activation=leaky
[route]
layers=-2
[reorg]
stride=2
[route]
layers=-1,-3
)" + fpgacnn::test::two_class_region_head();
}

constexpr int kBatch = 2;

Network make_network() {
    Network network = parse_darknet_cfg(net_text(), "qat.cfg");
    fill_synthetic_weights(network, 7);
    return network;
}

std::vector<float> random_images(const Network& network, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> images(network.input.size() * kBatch);
    for (float& v : images) v = pixel(random);
    return images;
}

std::vector<float> truth_boxes() {
    std::vector<float> truth(kBatch * kMaxTruthBoxes * kTruthFloats, 0.0f);
    const float boxes[kBatch][5] = {{0.3f, 0.6f, 0.25f, 0.3f, 1}, {0.7f, 0.2f, 0.4f, 0.35f, 0}};
    for (int b = 0; b < kBatch; ++b)
        std::copy(boxes[b], boxes[b] + 5, truth.begin() + b * kMaxTruthBoxes * kTruthFloats);
    return truth;
}

QuantizedNetwork calibrated_plan(const Network& network, const std::vector<float>& images,
                                 const std::vector<LayerWidths>& widths) {
    std::vector<Image> letterboxed;
    for (int b = 0; b < kBatch; ++b) {
        Image image;
        image.c = network.input.c;
        image.h = network.input.h;
        image.w = network.input.w;
        const float* first = images.data() + b * network.input.size();
        image.data.assign(first, first + network.input.size());
        letterboxed.push_back(std::move(image));
    }
    CalibrationOptions options;
    options.widths = widths;
    return calibrate_letterboxed(network, letterboxed, options).quantized;
}

FloatTrainer make_trainer(Network network) {
    return FloatTrainer(std::move(network),
                        read_training_options(model::parse_cfg_text(net_text(), "qat.cfg")));
}

struct WidthCase {
    const char* name;
    int conv_bits;  // every conv layer, unless mixed
    bool mixed;     // 8-bit weights, 16-bit outputs on the middle convs
};

class FakeQuantForward : public ::testing::TestWithParam<WidthCase> {};

// Every layer's output of the fake-quantized forward equals the CPU fixed-point engine's layer output
// (dequantized), bit for bit: the region's too (both compute it in float from the same values).
TEST_P(FakeQuantForward, EqualsTheFixedPointEngineBitForBit) {
    const Network network = make_network();
    const std::vector<float> images = random_images(network, 3);
    std::vector<LayerWidths> widths = uniform_conv_widths(network, GetParam().conv_bits);
    if (GetParam().mixed) {
        widths[2] = {8, 16};
        widths[3] = {8, 16};
    }
    auto plan = std::make_shared<QuantizedNetwork>(calibrated_plan(network, images, widths));

    FloatTrainer trainer = make_trainer(network);
    FakeQuantizer quantizer(trainer.network());
    quantizer.set_plan(*plan);
    trainer.set_fake_quantizer(&quantizer);
    const std::vector<float> truth = truth_boxes();
    trainer.forward(images.data(), truth.data(), kBatch);

    BackendOptions cpu;
    cpu.device = "cpu";
    cpu.precision = Precision::Mixed;
    cpu.quantized = plan;
    cpu.keep_layer_outputs = true;
    const std::unique_ptr<Backend> engine = make_backend(network, cpu);
    for (int b = 0; b < kBatch; ++b) {
        engine->run(images.data() + b * network.input.size());
        for (const Layer& layer : network.layers) {
            const std::vector<float> expected = engine->layer_output(layer.index);
            const std::size_t size = layer.output.size();
            ASSERT_EQ(expected.size(), size);
            const float* got = trainer.output(layer.index).data() + b * size;
            std::size_t differing = 0;
            for (std::size_t k = 0; k < size; ++k) differing += got[k] != expected[k] ? 1 : 0;
            EXPECT_EQ(differing, 0U) << GetParam().name << ": image " << b << ", layer " << layer.index;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Widths, FakeQuantForward,
                         ::testing::Values(WidthCase{"int16", 16, false}, WidthCase{"int8", 8, false},
                                           WidthCase{"mixed", 8, true}),
                         [](const ::testing::TestParamInfo<WidthCase>& info) { return info.param.name; });

const char* const kOneConv = R"([net]
batch=2
width=4
height=4
channels=2
[convolutional]
filters=3
size=1
activation=linear
)";

// Straight-through: with d loss / d output = 1, a weight's gradient is the sum of the (quantized)
// inputs it met at unsaturated outputs, and the input delta the sum of the quantized weights over the
// unsaturated outputs; a weight beyond its grid gets no gradient.
TEST(FakeQuantBackward, StraightThroughClippedAtSaturation) {
    Network network = parse_darknet_cfg(kOneConv, "one.cfg");
    fill_synthetic_weights(network, 2);
    std::vector<float> images(network.input.size() * kBatch);
    std::mt19937 random(9);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    for (float& v : images) v = pixel(random);
    QuantizedNetwork plan = calibrated_plan(network, images, uniform_conv_widths(network, 8));
    plan.layers[0].output_q += 2;  // a quarter of the range: some outputs saturate

    FloatTrainer trainer(network, read_training_options(model::parse_cfg_text(kOneConv, "one.cfg")));
    FakeQuantizer quantizer(trainer.network());
    quantizer.set_plan(plan);
    trainer.set_fake_quantizer(&quantizer);
    trainer.forward(images.data(), nullptr, kBatch);
    const std::vector<float> output = trainer.output(0);
    std::fill(trainer.delta(0).begin(), trainer.delta(0).end(), 1.0f);
    std::vector<float> input_delta(images.size(), 0.0f);
    trainer.backward(input_delta.data());

    const Layer& layer = network.layers[0];
    const int filters = layer.conv().filters;
    const int channels = layer.input.c;
    const std::size_t pixels = static_cast<std::size_t>(layer.output.h) * layer.output.w;
    const float high = 127 * std::ldexp(1.0f, -plan.layers[0].output_q);
    const float low = -128 * std::ldexp(1.0f, -plan.layers[0].output_q);
    std::vector<int16_t> w(layer.conv().weights.size());
    quantize_tensor(layer.conv().weights.data(), w.size(), plan.layers[0].weight_q, w.data(), 8);
    std::vector<int16_t> x(images.size());
    quantize_tensor(images.data(), x.size(), plan.input_q, x.data(), 16);
    std::size_t saturated = 0;
    std::vector<double> weight_gradient(w.size(), 0.0);
    std::vector<double> expected_input_delta(images.size(), 0.0);
    for (int b = 0; b < kBatch; ++b) {
        for (int f = 0; f < filters; ++f) {
            for (std::size_t p = 0; p < pixels; ++p) {
                const float y = output[(b * filters + f) * pixels + p];
                if (y >= high || y <= low) {
                    ++saturated;
                    continue;
                }
                for (int c = 0; c < channels; ++c) {
                    const std::size_t at = (b * channels + c) * pixels + p;
                    weight_gradient[f * channels + c] +=
                        std::ldexp(static_cast<double>(x[at]), -plan.input_q);
                    expected_input_delta[at] +=
                        std::ldexp(static_cast<double>(w[f * channels + c]), -plan.layers[0].weight_q);
                }
            }
        }
    }
    ASSERT_GT(saturated, 0U) << "the test needs saturated outputs";
    ASSERT_LT(saturated, output.size()) << "and unsaturated ones";
    const ConvGradients& gradients = trainer.gradients(0);
    for (std::size_t k = 0; k < w.size(); ++k)
        EXPECT_NEAR(gradients.weight_updates[k], weight_gradient[k], 1e-4) << "weight " << k;
    for (std::size_t k = 0; k < images.size(); ++k)
        EXPECT_NEAR(input_delta[k], expected_input_delta[k], 1e-5) << "input " << k;

    // A weight beyond the 8-bit grid (127.5 steps and more) gets no gradient; one inside keeps it.
    ConvGradients clipped = gradients;
    Layer& trained = trainer.network().layers[0];
    const float step = std::ldexp(1.0f, -plan.layers[0].weight_q);
    trained.conv().weights[0] = 127.6f * step;
    trained.conv().weights[1] = 127.4f * step;
    trained.conv().weights[2] = -128.6f * step;
    quantizer.clip_weight_gradients(trained, clipped);
    EXPECT_EQ(clipped.weight_updates[0], 0.0f);
    EXPECT_EQ(clipped.weight_updates[1], gradients.weight_updates[1]);
    EXPECT_EQ(clipped.weight_updates[2], 0.0f);
}

// QAT learns: the region cost on one fixed batch falls with every conv layer at 8 bits, the exponents
// recalibrated every 10 steps as fpgacnn-train --qat does (an 8-bit output's least-squares exponent
// leaves no headroom: over-fitting grows activations past the range calibrated at the start).
TEST(FakeQuantTraining, Int8OverfitsOneBatch) {
    const Network network = make_network();
    const std::vector<float> images = random_images(network, 4);
    FloatTrainer trainer = make_trainer(network);
    FakeQuantizer quantizer(trainer.network());
    const std::vector<LayerWidths> widths = uniform_conv_widths(network, 8);
    quantizer.set_plan(calibrated_plan(network, images, widths));
    trainer.set_fake_quantizer(&quantizer);
    const std::vector<float> truth = truth_boxes();
    const float first = trainer.train_batch(images.data(), truth.data());
    float last = first;
    for (int step = 1; step <= 150; ++step) {
        last = trainer.train_batch(images.data(), truth.data());
        if (step % 10 == 0) quantizer.set_plan(calibrated_plan(trainer.network(), images, widths));
    }
    std::printf("int8 QAT region cost on one batch: %.4f -> %.4f after 150 steps\n", first, last);
    EXPECT_LT(last, first / 10);
}

TEST(FakeQuantizer, RefusesWhatTheFixedPointForwardDoesNotRun) {
    Network bn = parse_darknet_cfg(
        "[net]\nwidth=4\nheight=4\nchannels=2\n[convolutional]\nbatch_normalize=1\nfilters=2\nsize=1\n"
        "activation=leaky\n",
        "bn.cfg");
    try {
        FakeQuantizer quantizer(bn);
        FAIL() << "a batch-norm layer was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("batch-norm folded"), std::string::npos) << e.what();
    }
    Network shortcut = parse_darknet_cfg(
        "[net]\nwidth=4\nheight=4\nchannels=2\n[convolutional]\nfilters=2\nsize=1\nactivation=leaky\n"
        "[convolutional]\nfilters=2\nsize=1\nactivation=leaky\n[shortcut]\nfrom=-2\nactivation=linear\n",
        "shortcut.cfg");
    EXPECT_THROW(FakeQuantizer quantizer(shortcut), Error);
}

}  // namespace
}  // namespace fpgacnn::train::fake_quant_test

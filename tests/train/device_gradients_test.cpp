// The float trainer with its conv layers' dX and dW in the kernel's fixed point (train/device_gradients):
// the emu's gradients equal the CPU twin's bit for bit through the trainer, one step's gradients stay
// within a measured SQNR of the float step's, layers the kernel build refuses stay in float, and
// --device values the trainer cannot use are refused with the valid ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"
#include "model/cfg_parser.hpp"
#include "train/device_gradients.hpp"
#include "train/float_trainer.hpp"
#include "train/region_loss.hpp"
#include "training_cfg_text.hpp"

namespace fpgacnn::train {
namespace {

// A region net with a stride-2 3x3 conv (BP's stride classes), batch-norm and plain layers, a maxpool
// and a 1x1 head.
std::string region_net() {
    return fpgacnn::test::training_net_section(3, 1, 24) + R"([convolutional]
batch_normalize=1
filters=8
size=3
stride=2
pad=1
activation=leaky
[convolutional]
filters=12
size=3
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
batch_normalize=1
filters=16
size=3
pad=1
activation=leaky
)" + fpgacnn::test::two_class_region_head();
}

std::string file_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// yolov2-tiny.cfg (Debian's darknet) at 96 x 96, batch 2: its nine conv layers' channel counts on
/// small maps. Empty when the file is missing.
std::string yolov2_tiny_small() {
    std::string cfg = file_text("/usr/share/darknet/cfg/yolov2-tiny.cfg");
    if (cfg.empty()) return cfg;
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"width=416", "width=96"},
                                   {"height=416", "height=96"},
                                   {"batch=1\n", "batch=2\n"}}) {
        const std::size_t at = cfg.find(from);
        if (at == std::string::npos) return "";
        cfg.replace(at, from.size(), to);
    }
    return cfg;
}

FloatTrainer make_trainer(const std::string& cfg, const std::string& name) {
    Network network = parse_darknet_cfg(cfg, name);
    fill_synthetic_weights(network, 7);
    return FloatTrainer(std::move(network), read_training_options(model::parse_cfg_text(cfg, name)));
}

struct Batch {
    std::vector<float> input;
    std::vector<float> truth;
};

/// Images uniform in [0, 1) and one box an image.
Batch random_batch(const FloatTrainer& trainer, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    Batch batch;
    batch.input.resize(trainer.network().input.size() * trainer.batch());
    for (float& v : batch.input) v = unit(random);
    batch.truth.assign(static_cast<std::size_t>(trainer.batch()) * kMaxTruthBoxes * kTruthFloats, 0.0f);
    for (int b = 0; b < trainer.batch(); ++b) {
        float* box = batch.truth.data() + static_cast<std::size_t>(b) * kMaxTruthBoxes * kTruthFloats;
        box[0] = 0.2f + 0.6f * unit(random), box[1] = 0.2f + 0.6f * unit(random);
        box[2] = 0.1f + 0.3f * unit(random), box[3] = 0.1f + 0.3f * unit(random);
        box[4] = b % 2 == 0 ? 0.0f : 1.0f;
    }
    return batch;
}

double sqnr_db(const std::vector<float>& reference, const std::vector<float>& other) {
    double signal = 0, noise = 0;
    for (std::size_t i = 0; i < reference.size(); ++i) {
        const double d = static_cast<double>(reference[i]) - other[i];
        signal += static_cast<double>(reference[i]) * reference[i];
        noise += d * d;
    }
    return noise == 0 ? 999.0 : 10.0 * std::log10(signal / noise);
}

/// One forward and backward pass (no update) of the same batch in float and with `gradients`; prints
/// each conv layer's SQNR of dW and of the delta reaching its input (dX), and returns the lowest of
/// each.
std::pair<double, double> lowest_step_sqnr(const std::string& cfg, const std::string& name,
                                           DeviceGradients& gradients) {
    FloatTrainer reference = make_trainer(cfg, name);
    FloatTrainer fixed = make_trainer(cfg, name);
    fixed.set_device_gradients(&gradients);
    const Batch batch = random_batch(reference, 11);
    reference.forward(batch.input.data(), batch.truth.data(), 100);
    reference.backward();
    fixed.forward(batch.input.data(), batch.truth.data(), 100);
    fixed.backward();
    double lowest_dw = 999, lowest_dx = 999;
    for (const Layer& layer : reference.network().layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const int i = layer.index;
        EXPECT_TRUE(gradients.runs(i)) << name << " layer " << i;
        const double dw = sqnr_db(reference.gradients(i).weight_updates, fixed.gradients(i).weight_updates);
        lowest_dw = std::min(lowest_dw, dw);
        std::printf("%s layer %d: SQNR dW %.1f dB", name.c_str(), i, dw);
        if (i > 0) {
            const double dx = sqnr_db(reference.delta(i - 1), fixed.delta(i - 1));
            lowest_dx = std::min(lowest_dx, dx);
            std::printf(", dX %.1f dB", dx);
        }
        std::printf("\n");
    }
    return {lowest_dw, lowest_dx};
}

TEST(DeviceGradients, EmuEqualsTheCpuTwinBitForBitThroughTheTrainer) {
    FloatTrainer on_emu = make_trainer(region_net(), "region.cfg");
    FloatTrainer on_twin = make_trainer(region_net(), "region.cfg");
    DeviceGradients emu(make_emu_device(), on_emu.network(), on_emu.batch());
    DeviceGradients twin(nullptr, on_twin.network(), on_twin.batch());
    on_emu.set_device_gradients(&emu);
    on_twin.set_device_gradients(&twin);
    // Several steps: the exponents of later batches come from earlier results, and the weights move.
    for (unsigned step = 0; step < 4; ++step) {
        const Batch batch = random_batch(on_emu, step);
        EXPECT_EQ(on_emu.train_batch(batch.input.data(), batch.truth.data()),
                  on_twin.train_batch(batch.input.data(), batch.truth.data()));
        for (const Layer& layer : on_emu.network().layers) {
            const int i = layer.index;
            ASSERT_EQ(on_emu.delta(i), on_twin.delta(i)) << "step " << step << " layer " << i;
            if (layer.type != LayerType::Convolutional) continue;
            ASSERT_EQ(on_emu.gradients(i).weight_updates, on_twin.gradients(i).weight_updates)
                << "step " << step << " layer " << i;
            ASSERT_EQ(layer.conv().weights, on_twin.network().layers[i].conv().weights);
        }
    }
    const std::vector<LayerGradientTotals> totals = emu.totals();
    ASSERT_EQ(totals.size(), 4U);
    EXPECT_EQ(totals[0].backward.commands, 0U) << "the first layer's dX is not needed";
    EXPECT_GE(totals[0].weight_gradient.commands, 4U);
    EXPECT_GE(totals[1].backward.commands, 4U);
    EXPECT_GT(totals[1].backward.param_read_bytes, 0U);
    // useful MACs of BP of layer 1 (8 -> 12 channels, 3x3, 12x12 output) for 3 images a step.
    EXPECT_EQ(totals[1].backward.useful_macs, totals[1].backward.commands * 8U * 12 * 9 * 144 * 3);
}

// Synthetic weights, one batch, the region loss's own deltas. Measured (AMD EPYC): the region net's
// lowest dW 49.2 dB, dX 51.0 dB; yolov2-tiny at 96 x 96 dW 41.9 dB (layer 0), dX 42.4 dB (the delta
// reaching layer 2's input, after every later layer's fixed-point BP). The bound leaves 4 dB.
TEST(DeviceGradients, OneStepStaysWithinTheMeasuredSqnrOfTheFloatStep) {
    {
        FloatTrainer shape = make_trainer(region_net(), "region.cfg");
        DeviceGradients emu(make_emu_device(), shape.network(), shape.batch());
        const auto [dw, dx] = lowest_step_sqnr(region_net(), "region.cfg", emu);
        EXPECT_GT(dw, 38.0);
        EXPECT_GT(dx, 38.0);
    }
    const std::string tiny = yolov2_tiny_small();
    if (tiny.empty()) GTEST_SKIP() << "/usr/share/darknet/cfg/yolov2-tiny.cfg (Debian's darknet) is missing";
    FloatTrainer shape = make_trainer(tiny, "yolov2-tiny.cfg");
    DeviceGradients emu(make_emu_device(), shape.network(), shape.batch());
    const auto [dw, dx] = lowest_step_sqnr(tiny, "yolov2-tiny.cfg", emu);
    EXPECT_GT(dw, 38.0);
    EXPECT_GT(dx, 38.0);
}

TEST(DeviceGradients, LayersTheBuildRefusesStayInFloat) {
    // A 7x7 window is above the reference build's K <= 3 (kernels/include config.hpp).
    const std::string cfg =
        "[net]\nbatch=2\nwidth=10\nheight=10\nchannels=3\n[convolutional]\nfilters=4\nsize=7\npad=1\n"
        "activation=leaky\n[convolutional]\nfilters=5\nsize=3\npad=1\nactivation=linear\n";
    FloatTrainer trainer = make_trainer(cfg, "wide.cfg");
    DeviceGradients twin(nullptr, trainer.network(), trainer.batch());
    EXPECT_FALSE(twin.runs(0));
    EXPECT_TRUE(twin.runs(1));
    // Layer 0 in float, layer 1 in fixed point: the step runs and both have gradients.
    trainer.set_device_gradients(&twin);
    const Batch batch = random_batch(trainer, 3);
    trainer.forward(batch.input.data(), nullptr, 2);
    for (float& d : trainer.delta(1)) d = 0.01f;
    trainer.backward();
    for (const int i : {0, 1}) {
        double sum = 0;
        for (const float g : trainer.gradients(i).weight_updates) sum += std::fabs(g);
        EXPECT_GT(sum, 0.0) << "layer " << i;
    }
    ASSERT_EQ(twin.totals().size(), 1U);
    EXPECT_EQ(twin.totals()[0].layer, 1);
}

TEST(DeviceGradients, DeviceValuesAreNamed) {
    FloatTrainer trainer = make_trainer(region_net(), "region.cfg");
    EXPECT_EQ(open_device_gradients("cpu", trainer.network(), 3), nullptr);
    EXPECT_NE(open_device_gradients("cpu-fixed", trainer.network(), 3)->name().find("cpu-fixed"),
              std::string::npos);
    EXPECT_NE(open_device_gradients("emu", trainer.network(), 3)->name().find("emu"), std::string::npos);
    for (const char* bad : {"auto", "gpu", "cpu:2"}) {
        try {
            open_device_gradients(bad, trainer.network(), 3);
            ADD_FAILURE() << bad << " accepted";
        } catch (const Error& e) {
            const std::string text = e.what();
            EXPECT_NE(text.find(std::string("'") + bad + "'"), std::string::npos) << text;
            EXPECT_NE(text.find("cpu, cpu-fixed, emu"), std::string::npos) << text;
        }
    }
}

}  // namespace
}  // namespace fpgacnn::train

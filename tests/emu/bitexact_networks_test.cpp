// Bit-exact, layer by layer: every layer's int16 output from the emu device equals the CPU int16
// backend's on every ISA path, on YOLO-LITE (trained weights), yolov2-tiny and yolov2 (synthetic
// weights), yolov3-tiny and yolov3 (upsample and shortcut on the device: contract 7's ops; yolo heads on the
// host between commands) at sizes that keep this fast, all 16-bit and with mixed 16/8-bit layers, and with a
// device whose kernel lacks the ops (those layers then run on the host). tests/emu_full repeats the 16-bit
// ones at 416x416.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "device_bitexact.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::test {
namespace {

// Every layer of the emu device against the CPU int16 backend on each of `isas`; the run's statistics.
std::vector<CommandStats> expect_bit_exact(const std::shared_ptr<const QuantizedNetwork>& q,
                                           const std::string& name, const std::vector<Int16Isa>& isas) {
    auto device = make_emu_device();
    return expect_device_bit_exact(*device, q, name, isas);
}

/// The layers of `type` that ran as a device command in `stats`, and all layers of that type.
std::pair<int, int> on_device(const Network& network, const std::vector<CommandStats>& stats,
                              LayerType type) {
    std::set<int> commanded;
    for (const CommandStats& s : stats) commanded.insert(s.layer);
    int ran = 0, all = 0;
    for (const Layer& layer : network.layers) {
        if (layer.type != type) continue;
        ++all;
        ran += commanded.count(layer.index) != 0 ? 1 : 0;
    }
    return {ran, all};
}

/// The emu device with a fingerprint that says its kernel has no upsample / shortcut ops (a build with
/// FPGACNN_UPSAMPLE_SHORTCUT=0, an older bitstream, the RTL twin): everything else is the emu's.
class WithoutUpsampleShortcut : public Device {
public:
    WithoutUpsampleShortcut() : inner_(make_emu_device()) {}
    std::string name() const override { return inner_->name() + " without upsample/shortcut"; }
    KernelMaxima maxima() const override {
        KernelMaxima m = inner_->maxima();
        m.upsample_shortcut = false;
        return m;
    }
    KernelFingerprint fingerprint() const override {
        KernelFingerprint f = inner_->fingerprint();
        f.maxima.upsample_shortcut = false;
        return f;
    }
    DeviceBuffer allocate(std::size_t bytes, BufferRole role, const std::string& purpose) override {
        return inner_->allocate(bytes, role, purpose);
    }
    void sync(const DeviceBuffer& b, SyncDirection d, std::size_t offset, std::size_t bytes) override {
        inner_->sync(b, d, offset, bytes);
    }
    void release_host_copy(const DeviceBuffer& b, std::size_t offset, std::size_t bytes) override {
        inner_->release_host_copy(b, offset, bytes);
    }
    void start(const DeviceCommand& c, const DeviceBuffer& arena, const DeviceBuffer& parameters) override {
        inner_->start(c, arena, parameters);
    }
    CommandStats wait(std::chrono::milliseconds timeout) override { return inner_->wait(timeout); }
    DeviceTelemetry telemetry() const override { return inner_->telemetry(); }

private:
    std::unique_ptr<Device> inner_;
};

// 16-bit models on the best path (tests/int16 holds every path to the reference layer by layer).
void expect_bit_exact(const Network& network, const std::string& name) {
    expect_bit_exact(std::make_shared<const QuantizedNetwork>(naive_quantize(network)), name,
                     {best_int16_isa()});
}

TEST(BitExact, YoloLiteTrainedWeights) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    expect_bit_exact(yolo_lite_network(), "yolo-lite-voc");
}

TEST(BitExact, YoloLiteWithBatchNormFolded) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const Network network =
        load_darknet_model(shared_model_file("yolo-lite-voc-bn", "tiny-yolov2-trial3.cfg"),
                           shared_model_file("yolo-lite-voc-bn", "tiny-yolov2-trial3.weights"));
    expect_bit_exact(network, "yolo-lite-voc-bn");
}

TEST(BitExact, Yolov2TinyAt224) {
    expect_bit_exact(synthetic_network("cfg/yolov2-tiny.cfg", 224), "yolov2-tiny 224");
}

TEST(BitExact, Yolov2At160) { expect_bit_exact(synthetic_network("cfg/yolov2.cfg", 160), "yolov2 160"); }

TEST(BitExact, MixedWidthsYoloLite) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    int narrow = 0;
    expect_bit_exact(mixed_widths(yolo_lite_network(), &narrow), "yolo-lite-voc, mixed 16/8 bits",
                     supported_int16_isas());
    EXPECT_GE(narrow, 3) << "the model must really have 8-bit layers";
}

TEST(BitExact, MixedWidthsYolov2At128) {
    // Routes and reorg between layers of different widths (calibration widens what a route joins); the
    // best path only (YOLO-LITE above runs every path; tests/int16 holds each path to the reference).
    int narrow = 0;
    expect_bit_exact(mixed_widths(synthetic_network("cfg/yolov2.cfg", 128), &narrow),
                     "yolov2 128, mixed 16/8 bits", {best_int16_isa()});
    EXPECT_GE(narrow, 5);
}

// YOLOv3-tiny and YOLOv3: upsample and shortcut run on the device (contract 7's ops), the yolo heads on the
// host between the device's commands (DeviceQueue); every layer must still equal the CPU backend's,
// calibrated as fpgacnn-quantize does, all 16-bit and with mixed 16/8-bit layers.
std::shared_ptr<const QuantizedNetwork> calibrated(const Network& network) {
    return std::make_shared<const QuantizedNetwork>(
        calibrate(network, {darknet_file("data/dog.jpg")}, {}).quantized);
}

void expect_all_on_device(const Network& network, const std::vector<CommandStats>& stats, LayerType type,
                          int expected) {
    const auto [ran, all] = on_device(network, stats, type);
    EXPECT_EQ(all, expected) << layer_type_name(type);
    EXPECT_EQ(ran, all) << layer_type_name(type) << " layers that ran on the host";
}

TEST(BitExact, Yolov3TinyAt160UpsampleOnTheDevice) {
    const auto q = calibrated(synthetic_network("cfg/yolov3-tiny.cfg", 160));
    const auto stats = expect_bit_exact(q, "yolov3-tiny 160", {best_int16_isa()});
    expect_all_on_device(q->network, stats, LayerType::Upsample, 1);
}

TEST(BitExact, MixedWidthsYolov3TinyAt160) {
    int narrow = 0;
    const auto q = mixed_widths(synthetic_network("cfg/yolov3-tiny.cfg", 160), &narrow);
    const auto stats = expect_bit_exact(q, "yolov3-tiny 160, mixed 16/8 bits", supported_int16_isas());
    EXPECT_GE(narrow, 3);
    expect_all_on_device(q->network, stats, LayerType::Upsample, 1);
}

TEST(BitExact, Yolov3At96ShortcutsAndUpsamplesOnTheDevice) {
    const auto q = calibrated(synthetic_network("cfg/yolov3.cfg", 96));
    const auto stats = expect_bit_exact(q, "yolov3 96", {best_int16_isa()});
    expect_all_on_device(q->network, stats, LayerType::Shortcut, 23);
    expect_all_on_device(q->network, stats, LayerType::Upsample, 2);
}

// Mixed widths put 8- and 16-bit operands into one shortcut (the `from` tensor at its own width).
TEST(BitExact, MixedWidthsYolov3At160) {
    int narrow = 0;
    const auto q = mixed_widths(synthetic_network("cfg/yolov3.cfg", 160), &narrow);
    const auto stats = expect_bit_exact(q, "yolov3 160, mixed 16/8 bits", {best_int16_isa()});
    EXPECT_GE(narrow, 20);
    expect_all_on_device(q->network, stats, LayerType::Shortcut, 23);
    expect_all_on_device(q->network, stats, LayerType::Upsample, 2);
    int mixed_shortcuts = 0;
    for (const Layer& layer : q->network.layers) {
        if (layer.type != LayerType::Shortcut) continue;
        const std::size_t from = static_cast<std::size_t>(layer.shortcut().from);
        mixed_shortcuts +=
            q->layers[from].output_bits != q->layers[static_cast<std::size_t>(layer.index) - 1].output_bits;
    }
    EXPECT_GT(mixed_shortcuts, 0) << "no shortcut adds operands of two widths";
    // The kernel's counted traffic of every command, the new ops' at mixed widths included, equals the
    // latency model's walk of the same loops.
    PlanOptions options;
    options.maxima = kernel::native_build_maxima();
    const CommandList list = plan_command_list(*q, options);
    ASSERT_EQ(stats.size(), list.commands.size());
    for (const CommandStats& s : stats) {
        const LayerEstimate& e = list.plan.layers[static_cast<std::size_t>(s.layer)].estimate;
        EXPECT_EQ(s.fm_read_bytes, e.fm_read_bytes) << "layer " << s.layer;
        EXPECT_EQ(s.fm_read_bursts, e.fm_read_bursts) << "layer " << s.layer;
        EXPECT_EQ(s.fm_write_bytes, e.fm_write_bytes) << "layer " << s.layer;
        EXPECT_EQ(s.fm_write_bursts, e.fm_write_bursts) << "layer " << s.layer;
    }
}

// A kernel without the ops (its fingerprint says so): the queue plans those layers on the host, with the
// same bits; a plan made for a kernel with the ops is refused by name instead of failing on the device.
TEST(BitExact, Yolov3At96OnAKernelWithoutTheOpsRunsThemOnTheHost) {
    const auto q = calibrated(synthetic_network("cfg/yolov3.cfg", 96));
    WithoutUpsampleShortcut device;
    const auto stats = expect_device_bit_exact(device, q, "yolov3 96 without the ops", {best_int16_isa()});
    EXPECT_EQ(on_device(q->network, stats, LayerType::Shortcut), std::make_pair(0, 23));
    EXPECT_EQ(on_device(q->network, stats, LayerType::Upsample), std::make_pair(0, 2));

    PlanOptions with_ops;
    with_ops.maxima = device.maxima();
    with_ops.maxima.upsample_shortcut = true;
    try {
        DeviceQueue queue(device, q, plan_command_list(*q, with_ops));
        ADD_FAILURE() << "a plan with shortcut commands was accepted for a kernel without the op";
    } catch (const DeviceError& e) {
        const std::string text = e.what();
        EXPECT_NE(text.find(device.name()), std::string::npos) << text;
        EXPECT_NE(text.find("re-plan for the device"), std::string::npos) << text;
    }
}

TEST(BitExact, Yolov4TinyAt128RouteGroupsOnTheHost) {
    Network network = load_darknet_cfg(source_dir() + "/cfg/yolov4-tiny.cfg", InputSizeOverride{128, 128});
    fill_synthetic_weights(network, 2024);
    fold_batchnorm(network);
    expect_bit_exact(calibrated(network), "yolov4-tiny 128", {best_int16_isa()});
}

// relu convs on the device (activation code 2 in the command) and a relu shortcut (on the device too): every
// layer equal to the CPU backend's on every ISA path, all 16-bit and with mixed 16/8-bit layers.
TEST(BitExact, ReluNetworkAt48AllWidths) {
    const Network network =
        synthetic_network("relu",
                          "[net]\nwidth=48\nheight=48\nchannels=3\n\n"
                          "[convolutional]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=relu\n\n"
                          "[maxpool]\nsize=2\nstride=2\n\n"
                          "[convolutional]\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=relu\n\n"
                          "[convolutional]\nfilters=32\nsize=1\nstride=1\nactivation=relu\n\n"
                          "[shortcut]\nfrom=-2\nactivation=relu\n\n"
                          "[convolutional]\nfilters=18\nsize=1\nstride=1\nactivation=linear\n\n"
                          "[yolo]\nmask=0,1,2\nanchors=10,14,23,27,37,58\nnum=3\nclasses=1\n");
    expect_bit_exact(calibrated(network), "relu net 48", supported_int16_isas());
    int narrow = 0;
    expect_bit_exact(mixed_widths(network, &narrow), "relu net 48, mixed 16/8 bits", supported_int16_isas());
    EXPECT_GE(narrow, 2);
}

}  // namespace
}  // namespace fpgacnn::test

namespace fpgacnn::test {
namespace {

// darknet's classifiers: convs and maxpools on the device, [avgpool] and [crop] in int16 on the host
// between commands, [connected] a 1x1 conv over the flattened input on the device, [dropout] / [cost]
// aliases and the [softmax] the host's float output layer. Every layer equal to the CPU backend's on
// every ISA path, all 16-bit (calibrated), int8 convs and mixed 16/8 bits.
TEST(BitExact, Darknet19At64AllWidths) {
    const Network network = synthetic_network("cfg/darknet19.cfg", 64);
    expect_bit_exact(calibrated(network), "darknet19 64", supported_int16_isas());
    int narrow = 0;
    expect_bit_exact(mixed_widths(network, &narrow), "darknet19 64, mixed 16/8 bits", supported_int16_isas());
    EXPECT_GE(narrow, 9);
}

TEST(BitExact, ClassifierLayersCropConnectedSoftmax) {
    const Network network = synthetic_network(
        "classifier_layers",
        "[net]\nwidth=40\nheight=40\nchannels=3\n\n"
        "[crop]\ncrop_height=32\ncrop_width=32\n\n"
        "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
        "[maxpool]\nsize=2\nstride=2\n\n"
        "[connected]\noutput=256\nbatch_normalize=1\nactivation=relu\n\n"
        "[dropout]\nprobability=.5\n\n"
        "[connected]\noutput=300\nactivation=linear\n\n"
        "[softmax]\n\n"
        "[cost]\n");
    expect_bit_exact(calibrated(network), "classifier layers", supported_int16_isas());
    int narrow = 0;
    expect_bit_exact(mixed_widths(network, &narrow), "classifier layers, mixed 16/8 bits",
                     supported_int16_isas());
    EXPECT_GE(narrow, 1);
}

// A conv with activation=logistic between fixed-point layers: its command runs linear, the host passes
// its output through the logistic (dequantize -> logistic -> requantize) before the next command reads it.
TEST(BitExact, LogisticConvHostStepBetweenCommands) {
    const Network network =
        synthetic_network("logistic",
                          "[net]\nwidth=32\nheight=32\nchannels=3\n\n"
                          "[convolutional]\nfilters=16\nsize=3\npad=1\nactivation=logistic\n\n"
                          "[maxpool]\nsize=2\nstride=2\n\n"
                          "[convolutional]\nfilters=32\nsize=3\npad=1\nactivation=logistic\n\n"
                          "[convolutional]\nfilters=200\nsize=1\nactivation=linear\n\n"
                          "[avgpool]\n\n[softmax]\n");
    expect_bit_exact(calibrated(network), "logistic net 32", supported_int16_isas());
    int narrow = 0;
    expect_bit_exact(mixed_widths(network, &narrow), "logistic net 32, mixed 16/8 bits",
                     supported_int16_isas());
}

}  // namespace
}  // namespace fpgacnn::test

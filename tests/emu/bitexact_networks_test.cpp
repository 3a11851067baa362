// Bit-exact, layer by layer: every layer's int16 output from the emu device equals the CPU int16
// backend's on every ISA path, on YOLO-LITE (trained weights), yolov2-tiny and yolov2 (synthetic
// weights), yolov3-tiny and yolov3 (host layers between commands) at sizes that keep this fast, all
// 16-bit and with mixed 16/8-bit layers. tests/emu_full
// repeats the 16-bit ones at 416x416.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "device_bitexact.hpp"
#include "fpgacnn/drivers/emu_device.hpp"

namespace fpgacnn::test {
namespace {

// Every layer of the emu device against the CPU int16 backend on each of `isas`.
void expect_bit_exact(const std::shared_ptr<const QuantizedNetwork>& q, const std::string& name,
                      const std::vector<Int16Isa>& isas) {
    auto device = make_emu_device();
    expect_device_bit_exact(*device, q, name, isas);
}

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

// YOLOv3-tiny and YOLOv3: upsample, shortcut (YOLOv3) and the yolo heads run on the host between the
// device's commands (DeviceQueue); every layer must still equal the CPU backend's, calibrated as
// fpgacnn-quantize does, all 16-bit and with mixed 16/8-bit layers.
std::shared_ptr<const QuantizedNetwork> calibrated(const Network& network) {
    return std::make_shared<const QuantizedNetwork>(
        calibrate(network, {darknet_file("data/dog.jpg")}, {}).quantized);
}

TEST(BitExact, Yolov3TinyAt160HostLayersBetweenCommands) {
    expect_bit_exact(calibrated(synthetic_network("cfg/yolov3-tiny.cfg", 160)), "yolov3-tiny 160",
                     {best_int16_isa()});
}

TEST(BitExact, MixedWidthsYolov3TinyAt160) {
    int narrow = 0;
    expect_bit_exact(mixed_widths(synthetic_network("cfg/yolov3-tiny.cfg", 160), &narrow),
                     "yolov3-tiny 160, mixed 16/8 bits", supported_int16_isas());
    EXPECT_GE(narrow, 3);
}

TEST(BitExact, Yolov3At96ShortcutsOnTheHost) {
    expect_bit_exact(calibrated(synthetic_network("cfg/yolov3.cfg", 96)), "yolov3 96", {best_int16_isa()});
}

TEST(BitExact, Yolov4TinyAt128RouteGroupsOnTheHost) {
    Network network = load_darknet_cfg(source_dir() + "/cfg/yolov4-tiny.cfg", InputSizeOverride{128, 128});
    fill_synthetic_weights(network, 2024);
    fold_batchnorm(network);
    expect_bit_exact(calibrated(network), "yolov4-tiny 128", {best_int16_isa()});
}

// relu convs on the device (activation code 2 in the command) and a relu shortcut on the host: every
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

// Bit-exact, layer by layer: every layer's int16 output from the emu device equals the CPU int16
// backend's on every ISA path, on YOLO-LITE (trained weights), yolov2-tiny and yolov2 (synthetic
// weights) at sizes that keep this fast, all 16-bit and with mixed 16/8-bit layers. tests/emu_full
// repeats the 16-bit ones at 416x416.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "emu_test_support.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn::test {
namespace {

// Every layer of the emu device against the CPU int16 backend on each of `isas`.
void expect_bit_exact(const std::shared_ptr<const QuantizedNetwork>& q, const std::string& name,
                      const std::vector<Int16Isa>& isas) {
    const Network& network = q->network;
    auto device = make_emu_device();
    QueueOptions options;
    options.capture_layers = true;
    DeviceQueue queue(*device, q, options);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q);
    const std::vector<int16_t> actual = queue.run(input.data());
    for (const Int16Isa isa : isas) {
        Int16Engine engine(*q, isa, 0, true);
        const std::vector<int16_t> expected = engine.run(input.data());
        for (std::size_t i = 0; i < network.layers.size(); ++i) {
            const std::vector<int16_t>& emu = queue.layer_output(static_cast<int>(i));
            const std::vector<int16_t>& cpu = engine.layer_output(static_cast<int>(i));
            const long at = first_difference(emu, cpu);
            ASSERT_EQ(at, -1) << name << ": layer " << i << " (" << layer_type_name(network.layers[i].type)
                              << ") differs at element " << at << ": emu "
                              << emu[static_cast<std::size_t>(at)] << ", cpu " << isa_name(isa) << " "
                              << cpu[static_cast<std::size_t>(at)];
        }
        ASSERT_EQ(actual, expected) << name << ": final output, " << isa_name(isa);
    }
    // The comparison means something only if the output carries information (an 8-bit output has at
    // most 256 values).
    const std::set<int16_t> distinct(actual.begin(), actual.end());
    EXPECT_GT(distinct.size(), q->layers.back().output_bits == arith::kNarrowBits ? 30u : 100u)
        << name << ": the output is nearly constant";
}

// 16-bit models on the best path (tests/int16 holds every path to the reference layer by layer).
void expect_bit_exact(const Network& network, const std::string& name) {
    expect_bit_exact(std::make_shared<const QuantizedNetwork>(naive_quantize(network)), name,
                     {best_int16_isa()});
}

// Calibrated with every other conv layer at 8 bits (weights and outputs), on one sample image.
std::shared_ptr<const QuantizedNetwork> mixed_widths(const Network& network, int* narrow_layers) {
    CalibrationOptions options;
    options.widths = uniform_conv_widths(network, arith::kNarrowBits);
    int conv = 0;
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        if (network.layers[i].type != LayerType::Convolutional) continue;
        if (conv++ % 2 == 1) options.widths[i] = {arith::kDataBits, arith::kDataBits};
    }
    auto q = std::make_shared<const QuantizedNetwork>(
        calibrate(network, {darknet_file("data/dog.jpg")}, options).quantized);
    *narrow_layers = 0;
    for (const QuantizedLayer& layer : q->layers) *narrow_layers += layer.output_bits == arith::kNarrowBits;
    return q;
}

Network synthetic(const std::string& cfg, int size) {
    Network network = load_darknet_cfg(darknet_file(cfg), InputSizeOverride{size, size});
    fill_synthetic_weights(network, 2024);
    fold_batchnorm(network);
    return network;
}

TEST(BitExact, YoloLiteTrainedWeights) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const Network network =
        load_darknet_model(shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg"),
                           shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights"));
    expect_bit_exact(network, "yolo-lite-voc");
}

TEST(BitExact, YoloLiteWithBatchNormFolded) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const Network network =
        load_darknet_model(shared_model_file("yolo-lite-voc-bn", "tiny-yolov2-trial3.cfg"),
                           shared_model_file("yolo-lite-voc-bn", "tiny-yolov2-trial3.weights"));
    expect_bit_exact(network, "yolo-lite-voc-bn");
}

TEST(BitExact, Yolov2TinyAt224) {
    expect_bit_exact(synthetic("cfg/yolov2-tiny.cfg", 224), "yolov2-tiny 224");
}

TEST(BitExact, Yolov2At160) { expect_bit_exact(synthetic("cfg/yolov2.cfg", 160), "yolov2 160"); }

TEST(BitExact, MixedWidthsYoloLite) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const Network network =
        load_darknet_model(shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg"),
                           shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights"));
    int narrow = 0;
    expect_bit_exact(mixed_widths(network, &narrow), "yolo-lite-voc, mixed 16/8 bits",
                     supported_int16_isas());
    EXPECT_GE(narrow, 3) << "the model must really have 8-bit layers";
}

TEST(BitExact, MixedWidthsYolov2At128) {
    // Routes and reorg between layers of different widths (calibration widens what a route joins); the
    // best path only (YOLO-LITE above runs every path; tests/int16 holds each path to the reference).
    int narrow = 0;
    expect_bit_exact(mixed_widths(synthetic("cfg/yolov2.cfg", 128), &narrow), "yolov2 128, mixed 16/8 bits",
                     {best_int16_isa()});
    EXPECT_GE(narrow, 5);
}

}  // namespace
}  // namespace fpgacnn::test

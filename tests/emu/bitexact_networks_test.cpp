// Bit-exact, layer by layer: every layer's int16 output from the emu device equals the CPU int16
// backend's on YOLO-LITE (trained weights), yolov2-tiny and yolov2 (synthetic weights) at sizes that
// keep this fast. tests/emu_full repeats it at 416x416.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "emu_test_support.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"

namespace fpgacnn::test {
namespace {

void expect_bit_exact(const Network& network, const std::string& name) {
    const auto q = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    Int16Engine engine(*q);
    auto device = make_emu_device();
    QueueOptions options;
    options.capture_layers = true;
    DeviceQueue queue(*device, q, options);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q);
    const std::vector<int16_t> expected = engine.run(input.data());
    const std::vector<int16_t> actual = queue.run(input.data());
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const std::vector<int16_t>& emu = queue.layer_output(static_cast<int>(i));
        const std::vector<int16_t>& cpu = engine.layer_output(static_cast<int>(i));
        const long at = first_difference(emu, cpu);
        ASSERT_EQ(at, -1) << name << ": layer " << i << " (" << layer_type_name(network.layers[i].type)
                          << ") differs at element " << at << ": emu " << emu[static_cast<std::size_t>(at)]
                          << ", cpu " << cpu[static_cast<std::size_t>(at)];
    }
    ASSERT_EQ(actual, expected) << name << ": final output";
    // The comparison means something only if the output carries information.
    const std::set<int16_t> distinct(actual.begin(), actual.end());
    EXPECT_GT(distinct.size(), 100u) << name << ": the output is nearly constant";
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

}  // namespace
}  // namespace fpgacnn::test

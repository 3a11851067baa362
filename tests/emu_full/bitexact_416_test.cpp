// The emu device against the CPU int16 backend at full size: yolov2 and yolov2-tiny at 416x416,
// layer by layer (slow: about 15 G multiply-accumulates each way for yolov2).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "../emu/emu_test_support.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"

namespace fpgacnn::test {
namespace {

void expect_bit_exact_at_416(const std::string& cfg) {
    Network network = load_darknet_cfg(darknet_file(cfg), InputSizeOverride{416, 416});
    fill_synthetic_weights(network, 416);
    fold_batchnorm(network);
    const auto q = std::make_shared<const QuantizedNetwork>(naive_quantize(network));
    Int16Engine engine(*q);
    auto device = make_emu_device();
    QueueOptions options;
    options.capture_layers = true;
    DeviceQueue queue(*device, q, options);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, 3);
    const std::vector<int16_t> expected = engine.run(input.data());
    const std::vector<int16_t> actual = queue.run(input.data());
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const long at = first_difference(queue.layer_output(static_cast<int>(i)),
                                         engine.layer_output(static_cast<int>(i)));
        ASSERT_EQ(at, -1) << cfg << ": layer " << i << " differs at element " << at;
    }
    ASSERT_EQ(actual, expected);
    EXPECT_GT(std::set<int16_t>(actual.begin(), actual.end()).size(), 100u);
}

TEST(BitExact416, Yolov2) { expect_bit_exact_at_416("cfg/yolov2.cfg"); }
TEST(BitExact416, Yolov2Tiny) { expect_bit_exact_at_416("cfg/yolov2-tiny.cfg"); }

}  // namespace
}  // namespace fpgacnn::test

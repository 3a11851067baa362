// The planner with 8-bit tensors (PlanOptions::output_bits): a conv layer whose input and weights are
// both 8-bit computes two output columns per multiplier (the pair mode), so its estimate counts half
// the compute cycles, and 8-bit tensors move one byte per element (half the feature-map bytes, the
// same bursts); the commands carry every layer's widths, and a plan made for other widths is refused.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/plan.hpp"
#include "plan_test_networks.hpp"

namespace fpgacnn::test {
namespace {

/// yolov2-tiny with every conv layer's weights and every layer's output at 8 bits (the network input
/// stays 16-bit, so layer 0 is the one conv that does not run in pairs).
QuantizedNetwork all_eight_bit() {
    QuantizedNetwork q;
    q.network = load_darknet_cfg(darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{416, 416});
    q.layers.resize(q.network.layers.size());
    for (std::size_t i = 0; i < q.layers.size(); ++i) {
        q.layers[i].output_bits = arith::kNarrowBits;
        if (q.network.layers[i].type == LayerType::Convolutional)
            q.layers[i].weight_bits = arith::kNarrowBits;
    }
    return q;
}

TEST(PairModePlan, EightBitTensorsHalveTheComputeCyclesAndTheFeatureMapBytes) {
    const QuantizedNetwork q = all_eight_bit();
    PlanOptions pairs;
    plan_widths_of(q, pairs);
    EXPECT_EQ(pairs.output_bits, layer_output_bits(q));
    PlanOptions one_column = pairs;
    one_column.output_bits.clear();  // the same weights, 16-bit tensors everywhere
    const NetworkPlan paired = plan_network(q.network, pairs);
    const NetworkPlan single = plan_network(q.network, one_column);
    int paired_convs = 0;
    for (std::size_t i = 0; i < paired.layers.size(); ++i) {
        const LayerPlan& a = paired.layers[i];
        const LayerPlan& b = single.layers[i];
        if (!a.on_device) continue;
        EXPECT_EQ(2 * a.estimate.fm_write_bytes, b.estimate.fm_write_bytes) << "layer " << i;
        EXPECT_EQ(a.estimate.fm_write_bursts, b.estimate.fm_write_bursts) << "layer " << i;
        EXPECT_EQ(a.estimate.fm_read_bursts, b.estimate.fm_read_bursts) << "layer " << i;
        if (i == 0) {  // reads the 16-bit image
            EXPECT_EQ(a.estimate.fm_read_bytes, b.estimate.fm_read_bytes);
        } else {
            EXPECT_EQ(2 * a.estimate.fm_read_bytes, b.estimate.fm_read_bytes) << "layer " << i;
        }
        if (a.type != LayerType::Convolutional) continue;
        EXPECT_EQ(a.estimate.param_read_bytes, b.estimate.param_read_bytes) << "layer " << i;
        if (i == 0) {
            EXPECT_FALSE(kernel::conv_runs_in_pairs(a.command));
            EXPECT_EQ(a.estimate.compute_cycles, b.estimate.compute_cycles);
            continue;
        }
        ASSERT_TRUE(kernel::conv_runs_in_pairs(a.command)) << "layer " << i;
        ++paired_convs;
        // K*K*rows*ceil(cols/2) against K*K*rows*cols, plus the same pipeline fill per group (13
        // columns of a 1x1 layer: (7 * 13 + 12) / (13 * 13 + 12) = 0.57).
        EXPECT_LT(a.estimate.compute_cycles, 0.6 * b.estimate.compute_cycles) << "layer " << i;
        EXPECT_GT(a.estimate.compute_cycles, 0.45 * b.estimate.compute_cycles) << "layer " << i;
    }
    EXPECT_EQ(paired_convs, 8);
    EXPECT_LT(paired.total.milliseconds, single.total.milliseconds);
}

// A build without the pair mode (FPGACNN_INT8_PAIRS 0, KernelMaxima::int8_pairs false) runs the same
// commands one column per multiplier: the 16-bit cycles, the same traffic and commands.
TEST(PairModePlan, ABuildWithoutThePairModeTakesTheOneColumnCycles) {
    const QuantizedNetwork q = all_eight_bit();
    PlanOptions pairs;
    plan_widths_of(q, pairs);
    PlanOptions without = pairs;
    without.maxima.int8_pairs = false;
    PlanOptions one_column = pairs;
    one_column.output_bits.clear();
    const NetworkPlan paired = plan_network(q.network, pairs);
    const NetworkPlan plain = plan_network(q.network, without);
    const NetworkPlan single = plan_network(q.network, one_column);
    for (std::size_t i = 0; i < plain.layers.size(); ++i) {
        const LayerPlan& a = plain.layers[i];
        if (a.type != LayerType::Convolutional) continue;
        EXPECT_TRUE(i == 0 || kernel::conv_runs_in_pairs(a.command))
            << "the command is the same: layer " << i;
        EXPECT_EQ(a.command.input_bits, paired.layers[i].command.input_bits) << "layer " << i;
        EXPECT_EQ(a.estimate.compute_cycles, single.layers[i].estimate.compute_cycles) << "layer " << i;
        EXPECT_EQ(a.estimate.fm_read_bytes, paired.layers[i].estimate.fm_read_bytes) << "layer " << i;
    }
    EXPECT_GT(plain.total.milliseconds, paired.total.milliseconds);
}

TEST(PairModePlan, CommandsCarryTheInputWidthsAndAPlanForOthersIsRefused) {
    const QuantizedNetwork q = all_eight_bit();
    PlanOptions options;
    plan_widths_of(q, options);
    const NetworkPlan plan = plan_network(q.network, options);
    const std::vector<kernel::LayerCommand> commands = with_exponents(plan, q);
    for (const kernel::LayerCommand& c : commands) {
        if (c.op != kernel::kOpConv) {
            EXPECT_EQ(c.input_bits, c.output_bits);  // maxpool carries the width
        }
        EXPECT_EQ(kernel::check_command(c, plan.options.maxima), kernel::kCommandOk);
    }
    EXPECT_EQ(commands[0].input_bits, static_cast<uint32_t>(arith::kNetworkInputBits));
    EXPECT_EQ(commands[1].input_bits, static_cast<uint32_t>(arith::kNarrowBits));

    PlanOptions weights_only;
    weights_only.weight_bits = conv_weight_bits(q);  // tensors planned at 16 bits
    try {
        with_exponents(plan_network(q.network, weights_only), q);
        FAIL() << "a plan made for 16-bit tensors must be refused for 8-bit ones";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("8-bit output"), std::string::npos) << e.what();
    }
    options.output_bits[2] = 12;
    EXPECT_THROW(plan_network(q.network, options), Error);
}

}  // namespace
}  // namespace fpgacnn::test

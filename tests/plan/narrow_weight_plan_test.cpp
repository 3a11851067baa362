// The planner with 8-bit conv weights (PlanOptions::weight_bits): their blocks take half the
// parameter words, the estimates count half the weight bytes, the packed buffer holds them two per
// word, and a plan made for other widths is refused instead of misread.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/plan.hpp"
#include "plan_test_networks.hpp"

namespace fpgacnn::test {
namespace {

Network yolov2_tiny() {
    return load_darknet_cfg(darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{416, 416});
}

/// Every other conv layer (0, 4, ...) at 8 bits.
std::vector<int> alternate_widths(const Network& net) {
    std::vector<int> bits(net.layers.size(), arith::kDataBits);
    int convs = 0;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        if (net.layers[i].type == LayerType::Convolutional && convs++ % 2 == 0) bits[i] = arith::kNarrowBits;
    }
    return bits;
}

/// Weights 8-bit-sized (every byte value, signs included) and biases per layer, at `bits`.
QuantizedNetwork quantized_with(const Network& net, const std::vector<int>& bits) {
    QuantizedNetwork q;
    q.network = net;
    q.layers.resize(net.layers.size());
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const Layer& layer = net.layers[i];
        if (layer.type != LayerType::Convolutional) continue;
        QuantizedLayer& ql = q.layers[i];
        ql.weight_bits = bits[i];
        ql.weights.resize(static_cast<std::size_t>(layer.output.c) * layer.input.c * layer.conv().size *
                          layer.conv().size);
        for (std::size_t w = 0; w < ql.weights.size(); ++w)
            ql.weights[w] = static_cast<int16_t>(static_cast<int>((w * 37 + i) % 256) - 128);
        ql.biases.assign(static_cast<std::size_t>(layer.output.c), static_cast<int16_t>(1000 + i));
    }
    return q;
}

TEST(NarrowWeightPlan, EightBitLayersTakeHalfTheirWeightWordsAndTraffic) {
    const Network net = yolov2_tiny();
    const NetworkPlan wide = plan_network(net, PlanOptions{});
    PlanOptions options;
    options.weight_bits = alternate_widths(net);
    const NetworkPlan mixed = plan_network(net, options);

    std::size_t halved_words = 0;
    int narrow_layers = 0;
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const LayerPlan& w = wide.layers[i];
        const LayerPlan& m = mixed.layers[i];
        if (m.type != LayerType::Convolutional) continue;
        EXPECT_EQ(m.command.weight_bits, static_cast<uint32_t>(options.weight_bits[i])) << "layer " << i;
        if (options.weight_bits[i] == arith::kDataBits) {
            EXPECT_EQ(m.weight_words, w.weight_words) << "layer " << i;
            EXPECT_EQ(m.estimate.param_read_bytes, w.estimate.param_read_bytes) << "layer " << i;
            continue;
        }
        ++narrow_layers;
        EXPECT_EQ(2 * m.weight_words, w.weight_words) << "layer " << i;  // Tm*Tn*K*K is even here
        halved_words += m.weight_words;
        // Each spatial tile reads the layer's weights once: 2 bytes per word, half the words.
        const std::uint64_t tiles = static_cast<std::uint64_t>(m.row_tiles) * m.col_tiles;
        EXPECT_EQ(w.estimate.param_read_bytes - m.estimate.param_read_bytes, tiles * 2 * m.weight_words)
            << "layer " << i;
        EXPECT_EQ(m.estimate.param_read_bursts, w.estimate.param_read_bursts) << "layer " << i;
        EXPECT_LE(m.estimate.total_cycles, w.estimate.total_cycles) << "layer " << i;
    }
    EXPECT_EQ(narrow_layers, 5);
    // Offsets stay 64-byte aligned and the blocks here are multiples of it, so the buffer shrinks by
    // exactly the 8-bit layers' half.
    EXPECT_EQ(wide.parameter_words - mixed.parameter_words, halved_words);
    EXPECT_LT(mixed.total.param_read_bytes, wide.total.param_read_bytes);
}

TEST(NarrowWeightPlan, PackedBufferHoldsEightBitWeightsTwoPerWordAndSixteenBitOnesOnePerWord) {
    const Network net = yolov2_tiny();
    PlanOptions options;
    options.weight_bits = alternate_widths(net);
    const QuantizedNetwork q = quantized_with(net, options.weight_bits);
    EXPECT_EQ(conv_weight_bits(q), options.weight_bits);
    const NetworkPlan plan = plan_network(net, options);
    const std::vector<int16_t> params = pack_parameters(plan, q);
    ASSERT_EQ(params.size(), plan.parameter_words);
    for (const LayerPlan& lp : plan.layers) {
        if (lp.type != LayerType::Convolutional) continue;
        const QuantizedLayer& ql = q.layers[static_cast<std::size_t>(lp.index)];
        const std::vector<int16_t> reordered = reorder_weights(
            ql.weights, lp.output_shape.c, lp.input_shape.c, static_cast<int>(lp.command.kernel_size),
            plan.options.maxima.tm, plan.options.maxima.tn);
        const int16_t* stored = params.data() + lp.weight_offset;
        if (lp.command.weight_bits == static_cast<uint32_t>(arith::kNarrowBits)) {
            // The bytes as the kernel's port reads them: re-ordered element i is byte i.
            ASSERT_EQ(2 * lp.weight_words, reordered.size()) << "layer " << lp.index;
            std::vector<int8_t> bytes(reordered.size());
            std::memcpy(bytes.data(), stored, bytes.size());
            for (std::size_t i = 0; i < reordered.size(); ++i)
                ASSERT_EQ(bytes[i], reordered[i]) << "layer " << lp.index << " byte " << i;
        } else {
            ASSERT_EQ(lp.weight_words, reordered.size());
            EXPECT_TRUE(std::equal(reordered.begin(), reordered.end(), stored)) << "layer " << lp.index;
        }
        for (int m = 0; m < lp.output_shape.c; ++m)  // biases stay one 16-bit word each
            ASSERT_EQ(params[lp.bias_offset + static_cast<std::size_t>(m)],
                      ql.biases[static_cast<std::size_t>(m)]);
    }
}

TEST(NarrowWeightPlan, APlanForOtherWeightWidthsIsRefused) {
    const Network net = yolov2_tiny();
    const std::vector<int> bits = alternate_widths(net);
    const QuantizedNetwork q = quantized_with(net, bits);
    const NetworkPlan wide = plan_network(net, PlanOptions{});  // laid out for 16-bit weights
    try {
        with_exponents(wide, q);
        FAIL() << "8-bit weights planned as 16-bit ones must be refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 0"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("8-bit weights"), std::string::npos) << e.what();
    }
    EXPECT_THROW(pack_parameters(wide, q), Error);
    PlanOptions options;
    options.weight_bits = bits;
    EXPECT_NO_THROW(with_exponents(plan_network(net, options), q));
    options.weight_bits[0] = 12;
    EXPECT_THROW(plan_network(net, options), Error);
}

}  // namespace
}  // namespace fpgacnn::test

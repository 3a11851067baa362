// The network plan: arena placement simulated layer by layer (every layer must find exactly its
// producers' values where it reads), route layers realised by placement, tiles within the kernel
// build, parameter offsets, and the estimates' bookkeeping.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/plan.hpp"
#include "plan_test_networks.hpp"

namespace fpgacnn::test {
namespace {

constexpr int kNetworkInputTag = -1;
constexpr int kNeverWritten = -2;

/// Which layer's kernel command wrote element e of layer t's output (through aliases and slices).
std::vector<int> expected_tags(const Network& net, int t) {
    if (t == kNetworkInputTag) return std::vector<int>(net.input.size(), kNetworkInputTag);
    const Layer& layer = net.layers[static_cast<std::size_t>(t)];
    if (layer.type == LayerType::Region) return expected_tags(net, t - 1);
    if (layer.type == LayerType::Route) {
        std::vector<int> tags;
        for (int source : layer.route().inputs) {
            const std::vector<int> part = expected_tags(net, source);
            tags.insert(tags.end(), part.begin(), part.end());
        }
        return tags;
    }
    return std::vector<int>(layer.output.size(), t);
}

/// Tags `range`'s bytes in a byte arena with `tag`.
void tag_bytes(std::vector<int>& arena, const ArenaRange& range, int tag) {
    std::fill_n(arena.begin() + static_cast<std::ptrdiff_t>(range.byte_offset()), range.bytes(), tag);
}

/// Runs the plan on an arena of tags, one per byte (8-bit tensors take one byte per element, 16-bit
/// ones two): each device layer checks its input, then tags its output.
void simulate(const Network& net, const NetworkPlan& plan, const std::string& name) {
    std::vector<int> arena(2 * plan.arena_elements, kNeverWritten);
    ASSERT_LE(plan.input.byte_end(), arena.size());
    tag_bytes(arena, plan.input, kNetworkInputTag);
    for (const LayerPlan& lp : plan.layers) {
        ASSERT_LE(lp.output.byte_end(), arena.size()) << name << " layer " << lp.index;
        if (!lp.on_device) continue;
        const std::vector<int> expected = expected_tags(net, lp.index - 1);
        ASSERT_EQ(lp.input.elements, expected.size());
        const std::size_t size = arith::fm_element_bytes(lp.input.bits);
        ASSERT_EQ(lp.input.byte_offset() % size, 0u);
        for (std::size_t byte = 0; byte < lp.input.bytes(); ++byte) {
            const int tag = arena[lp.input.byte_offset() + byte];
            if (tag == expected[byte / size]) continue;  // plain compare: this loop runs 10^8 times
            FAIL() << name << ": layer " << lp.index << " reads element " << byte / size
                   << " of its input, overwritten by " << tag;
        }
        // A kernel reads its input while it writes its output: they must not overlap.
        ASSERT_TRUE(lp.input.byte_end() <= lp.output.byte_offset() ||
                    lp.output.byte_end() <= lp.input.byte_offset())
            << name << " layer " << lp.index;
        tag_bytes(arena, lp.output, lp.index);
    }
    const std::vector<int> final_tags = expected_tags(net, static_cast<int>(net.layers.size()) - 1);
    const std::size_t size = arith::fm_element_bytes(plan.output.bits);
    for (std::size_t e = 0; e < final_tags.size(); ++e)
        ASSERT_EQ(arena[plan.output.byte_offset() + e * size], final_tags[e])
            << name << ": the network output was overwritten";
}

/// Conv output widths: all 16 (empty), all 8, or 8 but the first and last conv (the usual mix).
std::vector<std::vector<int>> width_choices(const Network& net) {
    std::vector<int> all8(net.layers.size(), arith::kNarrowBits);
    std::vector<int> mixed = all8;
    mixed.front() = arith::kDataBits;
    for (std::size_t i = net.layers.size(); i-- > 0;) {
        if (net.layers[i].type != LayerType::Convolutional) continue;
        mixed[i] = arith::kDataBits;
        break;
    }
    return {{}, all8, mixed};
}

TEST(PlanNetwork, ArenaGivesEveryLayerItsProducersValues) {
    for (const NamedCfg& cfg : planner_networks()) {
        const Network net = load_darknet_cfg(cfg.path, cfg.size);
        for (const KernelMaxima& maxima : {KernelMaxima{}, KernelMaxima{16, 8, 13, 20, 3, 2}}) {
            const std::vector<std::vector<int>> choices = width_choices(net);
            const char* const names[] = {" 16-bit", " 8-bit", " 8-bit but the first and last conv"};
            for (std::size_t w = 0; w < choices.size(); ++w) {
                PlanOptions options;
                options.maxima = maxima;
                options.output_bits = choices[w];
                const NetworkPlan plan = plan_network(net, options);
                ASSERT_EQ(plan.layers.size(), net.layers.size());
                simulate(net, plan, cfg.name + names[w]);
            }
        }
    }
}

// 8-bit tensors take half the arena's bytes, at byte offsets the commands carry.
TEST(PlanNetwork, EightBitTensorsTakeHalfTheArena) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    PlanOptions narrow;
    narrow.output_bits.assign(net.layers.size(), arith::kNarrowBits);
    const NetworkPlan wide_plan = plan_network(net, PlanOptions{});
    const NetworkPlan narrow_plan = plan_network(net, narrow);
    // Every tensor but the 16-bit image halves; the image keeps its words.
    EXPECT_LT(narrow_plan.arena_elements_no_reuse, wide_plan.arena_elements_no_reuse * 52 / 100);
    EXPECT_LT(narrow_plan.arena_elements, wide_plan.arena_elements * 6 / 10);
    for (std::size_t i = 0; i < net.layers.size(); ++i) {
        const LayerPlan& lp = narrow_plan.layers[i];
        EXPECT_EQ(lp.output.bits, arith::kNarrowBits) << "layer " << i;
        if (!lp.on_device) continue;
        EXPECT_EQ(lp.command.output_offset, lp.output.offset) << "layer " << i;  // bytes
        EXPECT_EQ(lp.command.output_bits, 8u) << "layer " << i;
        EXPECT_EQ(lp.command.input_bits, i == 0 ? 16u : 8u) << "layer " << i;
    }
    // The route's slices are byte ranges of one 8-bit buffer.
    EXPECT_EQ(narrow_plan.layers[24].output.offset,
              narrow_plan.layers[28].output.offset + narrow_plan.layers[27].output.elements);
    // A concatenation of two widths cannot be placed: its inputs must share one.
    narrow.output_bits[24] = arith::kDataBits;
    try {
        plan_network(net, narrow);
        FAIL() << "a route over 8- and 16-bit inputs must be refused";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 28"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("share its width"), std::string::npos) << e.what();
    }
}

TEST(PlanNetwork, Yolov2RoutesCostNoCopies) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    const NetworkPlan plan = plan_network(net, PlanOptions{});
    // 25: route 16 -> the same memory as layer 16's output.
    ASSERT_EQ(net.layers[25].type, LayerType::Route);
    EXPECT_EQ(plan.layers[25].output.offset, plan.layers[16].output.offset);
    EXPECT_FALSE(plan.layers[25].on_device);
    // 28: route 27 24 -> reorg writes channels 0..255, layer 24 channels 256..1279 of one buffer.
    ASSERT_EQ(net.layers[28].type, LayerType::Route);
    EXPECT_EQ(plan.layers[27].output.offset, plan.layers[28].output.offset);
    EXPECT_EQ(plan.layers[24].output.offset, plan.layers[28].output.offset + plan.layers[27].output.elements);
    EXPECT_EQ(plan.layers[29].input.offset, plan.layers[28].output.offset);
    // 31 (region) reads layer 30's output in place.
    EXPECT_EQ(plan.output.offset, plan.layers[30].output.offset);
    // Dead buffers are reused: far less than one buffer per tensor.
    EXPECT_LT(plan.arena_elements * 2, plan.arena_elements_no_reuse);
}

TEST(PlanNetwork, TilesFitTheKernelBuildAndCoverTheOutput) {
    for (const NamedCfg& cfg : planner_networks()) {
        const Network net = load_darknet_cfg(cfg.path, cfg.size);
        for (const KernelMaxima& m :
             {KernelMaxima{}, KernelMaxima{16, 8, 13, 20, 3, 2}, KernelMaxima{8, 2, 7, 9, 3, 2}}) {
            PlanOptions options;
            options.maxima = m;
            const NetworkPlan plan = plan_network(net, options);
            for (const LayerPlan& lp : plan.layers) {
                if (!lp.on_device) continue;
                const kernel::LayerCommand& c = lp.command;
                EXPECT_LE(lp.tile_cols, m.tc);
                EXPECT_GE(lp.tile_cols * lp.col_tiles,
                          lp.type == LayerType::Reorg ? lp.input_shape.w : lp.output_shape.w);
                if (lp.type == LayerType::Reorg) continue;
                EXPECT_LE(lp.tile_rows, m.tr);
                EXPECT_GE(lp.tile_rows * lp.row_tiles, lp.output_shape.h);
                EXPECT_LT((lp.row_tiles - 1) * lp.tile_rows, lp.output_shape.h) << "an empty tile";
                EXPECT_LE(lp.input_tile_rows, (m.tr - 1) * m.max_stride + m.max_kernel);
                EXPECT_LE(lp.input_tile_cols, (m.tc - 1) * m.max_stride + m.max_kernel);
                EXPECT_EQ(c.tile_rows, static_cast<uint32_t>(lp.tile_rows));
            }
        }
    }
}

TEST(PlanNetwork, ParametersAreDisjointAndPackedAtTheirOffsets) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{416, 416});
    const NetworkPlan plan = plan_network(net, PlanOptions{});
    QuantizedNetwork q;
    q.network = net;
    q.layers.resize(net.layers.size());
    std::size_t previous_end = 0;
    for (const LayerPlan& lp : plan.layers) {
        if (lp.type != LayerType::Convolutional) continue;
        EXPECT_GE(lp.weight_offset, previous_end);
        EXPECT_GE(lp.bias_offset, lp.weight_offset + lp.weight_words);
        EXPECT_EQ(lp.weight_offset % 32, 0u);
        previous_end = lp.bias_offset + lp.bias_elements;
        QuantizedLayer& ql = q.layers[static_cast<std::size_t>(lp.index)];
        ql.weights.resize(static_cast<std::size_t>(lp.output_shape.c) * lp.input_shape.c *
                          lp.command.kernel_size * lp.command.kernel_size);
        for (std::size_t i = 0; i < ql.weights.size(); ++i)
            ql.weights[i] = static_cast<int16_t>(i * 7 + lp.index);
        ql.biases.assign(static_cast<std::size_t>(lp.output_shape.c), static_cast<int16_t>(lp.index));
    }
    EXPECT_LE(previous_end, plan.parameter_words);
    const std::vector<int16_t> params = pack_parameters(plan, q);
    for (const LayerPlan& lp : plan.layers) {
        if (lp.type != LayerType::Convolutional) continue;
        const std::vector<int16_t> block(
            params.begin() + static_cast<std::ptrdiff_t>(lp.weight_offset),
            params.begin() + static_cast<std::ptrdiff_t>(lp.weight_offset + lp.weight_words));
        EXPECT_EQ(restore_weights(block, lp.output_shape.c, lp.input_shape.c,
                                  static_cast<int>(lp.command.kernel_size), 32, 4),
                  q.layers[static_cast<std::size_t>(lp.index)].weights);
        for (std::size_t m = 0; m < lp.bias_elements; ++m) {
            const int16_t expected =
                m < static_cast<std::size_t>(lp.output_shape.c) ? static_cast<int16_t>(lp.index) : 0;
            EXPECT_EQ(params[lp.bias_offset + m], expected);
        }
    }
}

TEST(PlanNetwork, ExponentsBecomeShifts) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{416, 416});
    const NetworkPlan plan = plan_network(net, PlanOptions{});
    QuantizedNetwork q;
    q.network = net;
    q.layers.resize(net.layers.size());
    for (QuantizedLayer& l : q.layers) l.input_q = l.output_q = 10, l.weight_q = 12, l.bias_q = 14;
    const std::vector<kernel::LayerCommand> commands = with_exponents(plan, q);
    ASSERT_FALSE(commands.empty());
    EXPECT_EQ(commands[0].bias_shift, 12 + 10 - 14);
    EXPECT_EQ(commands[0].output_shift, 12 + 10 - 10);
    EXPECT_EQ(commands[1].op, static_cast<uint32_t>(kernel::kOpMaxPool));
    EXPECT_EQ(commands[1].output_shift, 0);
    EXPECT_EQ(plan.layers[0].command.output_bits, 16u);  // before the quantized network is known
    for (const kernel::LayerCommand& c : commands) EXPECT_EQ(c.output_bits, 16u);
    q.layers[0].output_bits = q.layers[1].output_bits = 8;  // the conv and the maxpool after it
    EXPECT_THROW(with_exponents(plan, q), Error);           // planned for a 16-bit maxpool input
    PlanOptions widths;
    plan_widths_of(q, widths);
    const NetworkPlan narrow_plan = plan_network(net, widths);
    const std::vector<kernel::LayerCommand> narrow = with_exponents(narrow_plan, q);
    EXPECT_EQ(narrow[0].output_bits, 8u);
    EXPECT_EQ(narrow[1].output_bits, 8u);
    EXPECT_EQ(narrow[1].input_bits, 8u);
    EXPECT_EQ(narrow[2].output_bits, 16u);
    EXPECT_EQ(narrow[2].input_bits, 8u);
    q.layers[0].output_bits = 12;
    EXPECT_THROW(with_exponents(narrow_plan, q), Error);
    q.layers[1].output_bits = 16;
    q.layers[0].output_bits = 16;
    q.layers[0].bias_q = 40;  // bias shift -18
    try {
        with_exponents(plan, q);
        FAIL() << "a negative bias shift must be rejected";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 0"), std::string::npos) << e.what();
    }
}

TEST(PlanNetwork, EstimatesAddUpAndCountYolov2Work) {
    const Network net = load_darknet_cfg(darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    const NetworkPlan plan = plan_network(net, PlanOptions{});
    EXPECT_EQ(plan.total.macs, net.conv_macs());
    // darknet prints 29.472 BFLOPs for yolov2 at 416x416 (2 operations per MAC).
    EXPECT_NEAR(2.0 * static_cast<double>(plan.total.macs) / 1e9, 29.47, 0.01);
    double sum = 0;
    for (const LayerPlan& lp : plan.layers) {
        if (!lp.on_device) continue;
        EXPECT_GT(lp.estimate.total_cycles, 0);
        // Overlap never makes a layer faster than its busiest unit.
        EXPECT_GE(lp.estimate.total_cycles + 1e-6,
                  std::max({lp.estimate.compute_cycles, lp.estimate.load_cycles, lp.estimate.store_cycles}) *
                      0.999);
        EXPECT_EQ(lp.estimate.fm_write_bytes, 2u * lp.output_shape.size());
        sum += lp.estimate.milliseconds;
    }
    EXPECT_NEAR(sum, plan.total.milliseconds, 1e-6 * sum);
    EXPECT_FALSE(format_plan_table(plan).empty());
}

std::string write_cfg(const std::string& name, const std::string& text) {
    const std::string path = scratch_dir("plan_" + name) + "/net.cfg";
    std::ofstream(path) << text;
    return path;
}

TEST(PlanNetwork, LayersOutsideTheKernelBuildAreNamedInTheError) {
    const std::string path =
        write_cfg("big_window",
                  "[net]\nwidth=32\nheight=32\nchannels=3\n\n"
                  "[convolutional]\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
                  "[convolutional]\nfilters=8\nsize=5\nstride=1\npad=1\nactivation=leaky\n");
    const Network net = load_darknet_cfg(path);
    try {
        plan_network(net, PlanOptions{});
        FAIL() << "a 5x5 conv does not fit a kernel built for 3x3";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("layer 1"), std::string::npos) << message;
        EXPECT_NE(message.find("FPGACNN_MAX_K"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace fpgacnn::test

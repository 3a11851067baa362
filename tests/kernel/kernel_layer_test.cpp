// Hand-checked cases of the kernel's layer semantics, command checking and traffic counting.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "kernel_harness.hpp"
#include "reference_ops.hpp"

namespace fpgacnn::test {
namespace {

/// A valid 1 -> 1 map 3x3 conv on 5x5, every width 16: the tests below change one field.
kernel::LayerCommand small_conv_command() {
    kernel::LayerCommand conv{};
    conv.op = kernel::kOpConv;
    conv.in_c = conv.out_c = 1, conv.in_h = conv.in_w = conv.out_h = conv.out_w = 5;
    conv.kernel_size = 3, conv.stride = 1, conv.pad = 1, conv.tile_rows = conv.tile_cols = 5;
    conv.output_bits = conv.weight_bits = conv.input_bits = 16;
    return conv;
}

kernel::LayerCommand pool_command(int c, int h, int w, int size, int stride, int padding) {
    kernel::LayerCommand cmd{};
    cmd.op = kernel::kOpMaxPool;
    cmd.in_c = cmd.out_c = c;
    cmd.in_h = h, cmd.in_w = w;
    cmd.out_h = (h + padding - size) / stride + 1;
    cmd.out_w = (w + padding - size) / stride + 1;
    cmd.kernel_size = size, cmd.stride = stride, cmd.pad = padding / 2;
    cmd.tile_rows = std::min<int>(cmd.out_h, kernel::kTr);
    cmd.tile_cols = std::min<int>(cmd.out_w, kernel::kTc);
    cmd.output_bits = 16;
    cmd.weight_bits = 16;
    cmd.input_bits = 16;
    return cmd;
}

TEST(KernelLayers, MaxPoolSize2Stride1KeepsSizeAndTakesPartialEdgeWindows) {
    // yolov2-tiny's last pool: size 2, stride 1, darknet padding 1 -> offset 0, output 3x3.
    const std::vector<int16_t> input = {1, 2, 3,  //
                                        4, 5, 6,  //
                                        7, 8, -9};
    std::mt19937 rng(1);
    const KernelRun run = run_kernel_command(pool_command(1, 3, 3, 2, 1, 1), input, {}, {}, rng);
    ASSERT_EQ(run.check, kernel::kCommandOk);
    EXPECT_EQ(run.output, (std::vector<int16_t>{5, 6, 6, 8, 8, 6, 8, 8, -9}));
}

TEST(KernelLayers, MaxPoolSize2Stride2OnOddSizeCoversTheLastColumn) {
    // darknet: out = (5 + 1 - 2) / 2 + 1 = 3; the last window holds only column 4.
    const std::vector<int16_t> input = {1, 9, 2, 3, -7,  //
                                        0, 0, 4, 0, -8};
    std::mt19937 rng(2);
    const KernelRun run = run_kernel_command(pool_command(1, 2, 5, 2, 2, 1), input, {}, {}, rng);
    ASSERT_EQ(run.check, kernel::kCommandOk);
    EXPECT_EQ(run.output, (std::vector<int16_t>{9, 4, -7}));
}

TEST(KernelLayers, ReorgOfOneChannelIsDarknetsSpaceToDepth) {
    // c=4, h=w=2 (the layer's input dims), stride 2: the 16 values read as one 4x4 map.
    kernel::LayerCommand cmd{};
    cmd.op = kernel::kOpReorg;
    cmd.in_c = 4, cmd.in_h = 2, cmd.in_w = 2;
    cmd.out_c = 16, cmd.out_h = 1, cmd.out_w = 1;
    cmd.stride = 2;
    cmd.tile_cols = 2;
    cmd.output_bits = 16;
    cmd.weight_bits = 16;
    cmd.input_bits = 16;
    std::vector<int16_t> input(16);
    for (int i = 0; i < 16; ++i) input[i] = static_cast<int16_t>(i);
    std::mt19937 rng(3);
    const KernelRun run = run_kernel_command(cmd, input, {}, {}, rng);
    ASSERT_EQ(run.check, kernel::kCommandOk);
    EXPECT_EQ(run.output, (std::vector<int16_t>{0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15}));
}

TEST(KernelLayers, ConvRoundsSaturatesAndAppliesLeaky) {
    // One 1x1 map, one filter of weight 1: output = requantize(bias << 0 + x, shift 1, leaky).
    kernel::LayerCommand cmd{};
    cmd.op = kernel::kOpConv;
    cmd.in_c = cmd.out_c = 1;
    cmd.in_h = 1, cmd.in_w = 4, cmd.out_h = 1, cmd.out_w = 4;
    cmd.kernel_size = 1, cmd.stride = 1, cmd.pad = 0, cmd.leaky = 1;
    cmd.bias_shift = 0, cmd.output_shift = 1;
    cmd.tile_rows = 1, cmd.tile_cols = 4;
    cmd.output_bits = 16;
    cmd.weight_bits = 16;
    cmd.input_bits = 16;
    std::vector<int16_t> bias(kernel::kTm, 0);
    const std::vector<int16_t> input = {3, -3, 32767, -32768};
    std::mt19937 rng(4);
    const KernelRun run = run_kernel_command(cmd, input, reorder_for_kernel({1}, 1, 1, 1), bias, rng);
    ASSERT_EQ(run.check, kernel::kCommandOk);
    // 3/2 = 1.5 -> 2 (ties up); -3 * 13107 / 2^18 = -0.15 -> 0; 32767/2 -> 16384; -32768*0.1/2 -> -1638.
    EXPECT_EQ(run.output, (std::vector<int16_t>{2, 0, 16384, -1638}));
    // The same rounding at 8 bits, then the clamp to [-128, 127].
    cmd.output_bits = 8;
    const KernelRun narrow = run_kernel_command(cmd, input, reorder_for_kernel({1}, 1, 1, 1), bias, rng);
    ASSERT_EQ(narrow.check, kernel::kCommandOk);
    EXPECT_EQ(narrow.output, (std::vector<int16_t>{2, 0, 127, -128}));
    // relu: leaky with slope 0, so every negative accumulator gives 0 (linear would give -1, -16384).
    cmd.output_bits = 16;
    cmd.leaky = arith::kActivationRelu;
    const KernelRun relu = run_kernel_command(cmd, input, reorder_for_kernel({1}, 1, 1, 1), bias, rng);
    ASSERT_EQ(relu.check, kernel::kCommandOk);
    EXPECT_EQ(relu.output, (std::vector<int16_t>{2, 0, 16384, 0}));
    // A code the contract does not define is refused without writing (on the RTL too, where built).
    cmd.leaky = arith::kActivationCodes;
    const KernelRun unknown = run_kernel_command(cmd, input, reorder_for_kernel({1}, 1, 1, 1), bias, rng);
    EXPECT_EQ(unknown.check, kernel::kCommandBadActivation);
    EXPECT_EQ(unknown.output, std::vector<int16_t>(4, kGuard));
}

TEST(KernelLayers, InvalidCommandsAreRejectedWithoutWriting) {
    kernel::LayerCommand good = pool_command(3, 8, 8, 2, 2, 1);
    ASSERT_EQ(kernel::check_command(good), kernel::kCommandOk);
    struct Case {
        const char* what;
        void (*mutate)(kernel::LayerCommand&);
        kernel::CommandCheck expected;
    };
    const Case cases[] = {
        {"op", [](kernel::LayerCommand& c) { c.op = 8; }, kernel::kCommandBadOp},
        {"tile rows", [](kernel::LayerCommand& c) { c.tile_rows = kernel::kTr + 1; },
         kernel::kCommandBadTile},
        {"tile cols", [](kernel::LayerCommand& c) { c.tile_cols = 0; }, kernel::kCommandBadTile},
        {"window", [](kernel::LayerCommand& c) { c.kernel_size = kernel::kMaxK + 1; },
         kernel::kCommandBadWindow},
        {"stride", [](kernel::LayerCommand& c) { c.stride = kernel::kMaxS + 1; }, kernel::kCommandBadWindow},
        {"pad", [](kernel::LayerCommand& c) { c.pad = 2; }, kernel::kCommandBadPad},
        {"channels", [](kernel::LayerCommand& c) { c.out_c = 4; }, kernel::kCommandShapeMismatch},
        {"height", [](kernel::LayerCommand& c) { c.in_h = 0; }, kernel::kCommandBadDimension},
        {"shift", [](kernel::LayerCommand& c) { c.output_shift = 60; }, kernel::kCommandBadShift},
        {"width", [](kernel::LayerCommand& c) { c.output_bits = 12; }, kernel::kCommandBadWidth},
        {"weight width", [](kernel::LayerCommand& c) { c.weight_bits = 8; }, kernel::kCommandBadWeightWidth},
    };
    for (const Case& test_case : cases) {
        kernel::LayerCommand bad = good;
        test_case.mutate(bad);
        EXPECT_EQ(kernel::check_command(bad), test_case.expected) << test_case.what;
        std::vector<int16_t> arena(1000, kGuard);
        bad.output_offset = 500;
        EXPECT_EQ(kernel::run_layer(bad, arena.data(), arena.data(), nullptr, nullptr), test_case.expected);
        EXPECT_EQ(arena, std::vector<int16_t>(1000, kGuard)) << test_case.what << ": wrote despite the check";
        EXPECT_STRNE(kernel::command_check_text(test_case.expected), "ok");
    }
    kernel::LayerCommand conv{};
    conv.op = kernel::kOpConv;
    conv.in_c = conv.out_c = 1, conv.in_h = conv.in_w = 5, conv.out_h = conv.out_w = 4;
    conv.kernel_size = 3, conv.stride = 1, conv.pad = 1, conv.tile_rows = conv.tile_cols = 4;
    conv.output_bits = 16;
    conv.weight_bits = 16;
    conv.input_bits = 16;
    EXPECT_EQ(kernel::check_command(conv), kernel::kCommandShapeMismatch);  // (5 + 2 - 3) / 1 + 1 = 5
    conv.out_h = conv.out_w = 5;
    EXPECT_EQ(kernel::check_command(conv), kernel::kCommandOk);
    conv.leaky = arith::kActivationRelu;
    EXPECT_EQ(kernel::check_command(conv), kernel::kCommandOk);
    conv.leaky = arith::kActivationCodes;  // no such activation: refused, not run as linear
    EXPECT_EQ(kernel::check_command(conv), kernel::kCommandBadActivation);
    EXPECT_STRNE(kernel::command_check_text(kernel::kCommandBadActivation), "unknown check result");
    conv.leaky = 0;
    conv.bias_shift = -1;
    EXPECT_EQ(kernel::check_command(conv), kernel::kCommandBadShift);
}

TEST(KernelLayers, TrafficCountersCountEveryBurst) {
    // A conv of 5 input maps -> 40 output maps, 30x30, 3x3 pad 1, tiles of 26 (or the build's Tr/Tc).
    for (const int weight_bits : {arith::kDataBits, arith::kNarrowBits}) {
        kernel::LayerCommand cmd{};
        cmd.op = kernel::kOpConv;
        cmd.in_c = 5, cmd.in_h = 30, cmd.in_w = 30;
        cmd.out_c = 40, cmd.out_h = 30, cmd.out_w = 30;
        cmd.kernel_size = 3, cmd.stride = 1, cmd.pad = 1;
        cmd.tile_rows = std::min(kernel::kTr, 30);
        cmd.tile_cols = std::min(kernel::kTc, 30);
        cmd.output_bits = 16;
        cmd.weight_bits = static_cast<uint32_t>(weight_bits);
        cmd.input_bits = 16;
        std::mt19937 rng(5);
        const std::vector<int16_t> input(5 * 30 * 30, 1);
        const std::vector<int16_t> weights(40 * 5 * 9, 1);
        const std::vector<int16_t> bias(kernel::padded_bias_elements(40, kernel::kTm), 0);
        const KernelRun run =
            run_kernel_command(cmd, input, reorder_for_kernel(weights, 40, 5, 3, weight_bits), bias, rng);
        ASSERT_EQ(run.check, kernel::kCommandOk);
        // The ones must have arrived as ones: 45 taps of 1 + ... at 30x30 interior = 45.
        EXPECT_EQ(run.output[31], 45) << weight_bits << "-bit weights";

        const uint64_t row_tiles = kernel::div_ceil(30, cmd.tile_rows);
        const uint64_t col_tiles = kernel::div_ceil(30, cmd.tile_cols);
        const uint64_t map_groups = kernel::div_ceil(40, kernel::kTm);
        const uint64_t input_groups = kernel::div_ceil(5, kernel::kTn);
        const uint64_t spatial_tiles = row_tiles * col_tiles;
        // Every output element written exactly once, one burst per map row of each tile.
        EXPECT_EQ(run.traffic.fm_write_bytes, 2u * 40 * 30 * 30);
        EXPECT_EQ(run.traffic.fm_write_bursts, 40u * 30 * col_tiles);
        // Weights: the whole re-ordered tensor once per spatial tile in its storage words (8-bit:
        // half the bytes), plus Tm biases per map group.
        const uint64_t weight_words =
            kernel::reordered_weight_words(40, 5, 3, kernel::kTm, kernel::kTn, weight_bits);
        const uint32_t block_elements = static_cast<uint32_t>(kernel::kTm * kernel::kTn) * 9;
        const uint64_t block_words = weight_bits == arith::kNarrowBits
                                         ? (block_elements + 1) / 2
                                         : block_elements;  // odd blocks round up
        EXPECT_EQ(weight_words, map_groups * input_groups * block_words);
        EXPECT_EQ(run.traffic.param_read_bytes,
                  2u * spatial_tiles * (weight_words + map_groups * kernel::kTm))
            << weight_bits << "-bit weights";
        EXPECT_EQ(run.traffic.param_read_bursts, spatial_tiles * map_groups * (input_groups + 1));
        // Inputs: every input map read once per map group and spatial tile, with halo (never less).
        EXPECT_GE(run.traffic.fm_read_bytes, 2u * map_groups * 5 * 30 * 30);
        EXPECT_GT(run.traffic.fm_read_bursts, 0u);
    }
}

TEST(KernelLayers, HlsTopFunctionMatchesNativeEntryPoint) {
    std::mt19937 rng(6);
    std::uniform_int_distribution<int> value(-2000, 2000);
    const int in_c = 7, hw = 17, out_c = 9;
    std::vector<int16_t> input(in_c * hw * hw), weights(out_c * in_c * 9),
        bias(kernel::padded_bias_elements(out_c, kernel::kTm));
    for (auto* v : {&input, &weights, &bias})
        for (int16_t& x : *v) x = static_cast<int16_t>(value(rng));
    for (int16_t& w : weights) w = arith::saturate_to_width(w, arith::kNarrowBits);  // fit both widths

    for (const uint32_t output_bits : {16u, 8u}) {
        const uint32_t weight_bits = output_bits;
        const uint32_t input_bits = output_bits;  // 8: the pair mode
        std::vector<int16_t> layer_input = input;
        for (int16_t& x : layer_input) x = arith::saturate_to_width(x, static_cast<int>(input_bits));
        const std::vector<int16_t> reordered =
            reorder_for_kernel(weights, out_c, in_c, 3, static_cast<int>(weight_bits));
        std::vector<int16_t> params = reordered;
        params.insert(params.end(), bias.begin(), bias.end());
        std::vector<int16_t> arena_top(input.size() + out_c * hw * hw, kGuard);
        write_tensor(arena_top, 0, static_cast<int>(input_bits), layer_input);
        std::vector<int16_t> arena_native = arena_top;
        kernel::LayerCommand cmd{};
        cmd.op = kernel::kOpConv, cmd.input_offset = 0;
        // An 8-bit output starts at an odd byte: the byte-wide port writes any byte.
        cmd.output_offset = static_cast<uint32_t>(output_bits == 8u ? 2 * input.size() + 1 : input.size());
        cmd.weight_offset = 0, cmd.bias_offset = static_cast<uint32_t>(reordered.size());
        cmd.in_c = in_c, cmd.in_h = cmd.in_w = hw, cmd.out_c = out_c, cmd.out_h = cmd.out_w = hw;
        cmd.kernel_size = 3, cmd.stride = 1, cmd.pad = 1, cmd.leaky = 1, cmd.bias_shift = 3;
        cmd.output_shift = 8;
        cmd.tile_rows = std::min(5, kernel::kTr), cmd.tile_cols = std::min(11, kernel::kTc);
        cmd.output_bits = output_bits;
        cmd.weight_bits = weight_bits;
        cmd.input_bits = input_bits;
        ASSERT_EQ(kernel::run_layer(cmd, arena_native.data(), arena_native.data(), params.data(), nullptr),
                  kernel::kCommandOk);
        fpgacnn_accel(cmd.op, cmd.input_offset, cmd.output_offset, cmd.weight_offset, cmd.bias_offset,
                      cmd.in_c, cmd.in_h, cmd.in_w, cmd.out_c, cmd.out_h, cmd.out_w, cmd.kernel_size,
                      cmd.stride, cmd.pad, cmd.leaky, cmd.bias_shift, cmd.output_shift, cmd.tile_rows,
                      cmd.tile_cols, cmd.output_bits, cmd.weight_bits, cmd.input_bits, cmd.error_offset,
                      cmd.batch, reinterpret_cast<const kernel::WordBeat*>(arena_top.data()),
                      reinterpret_cast<kernel::WordBeat*>(arena_top.data()),
                      reinterpret_cast<const kernel::WordBeat*>(params.data()),
                      reinterpret_cast<const kernel::ByteBeat*>(arena_top.data()),
                      reinterpret_cast<kernel::ByteBeat*>(arena_top.data()));
        EXPECT_EQ(arena_top, arena_native) << output_bits << "-bit input, output and weights";
    }
}

TEST(KernelLayers, OutputWidthMustBeSixteenOrEight) {
    kernel::LayerCommand conv = small_conv_command();
    kernel::LayerCommand reorg{};
    reorg.op = kernel::kOpReorg;
    reorg.in_c = 4, reorg.in_h = reorg.in_w = 2, reorg.out_c = 16, reorg.out_h = reorg.out_w = 1;
    reorg.stride = 2, reorg.tile_cols = 2;
    reorg.weight_bits = 16;
    reorg.input_bits = 16;
    for (kernel::LayerCommand c : {conv, pool_command(3, 8, 8, 2, 2, 1), reorg}) {
        for (const uint32_t bits : {16u, 8u}) {
            c.output_bits = bits;
            if (c.op != kernel::kOpConv) c.input_bits = bits;  // they carry their input's width
            EXPECT_EQ(kernel::check_command(c), kernel::kCommandOk) << describe(c);
        }
        for (const uint32_t bits : {0u, 12u, 32u}) {
            c.output_bits = bits;
            EXPECT_EQ(kernel::check_command(c), kernel::kCommandBadWidth) << describe(c);
        }
    }
    EXPECT_STREQ(kernel::command_check_text(kernel::kCommandBadWidth),
                 "output width (output_bits) must be 16 or 8");
    kernel::LayerCommand identify{};  // every other field ignored, the width too
    identify.op = kernel::kOpIdentify;
    EXPECT_EQ(kernel::check_command(identify), kernel::kCommandOk);
}

TEST(KernelLayers, WeightWidthIsSixteenOrEightForConvAndSixteenElsewhere) {
    kernel::LayerCommand conv = small_conv_command();
    for (const uint32_t bits : {16u, 8u}) {
        conv.weight_bits = bits;
        EXPECT_EQ(kernel::check_command(conv), kernel::kCommandOk) << bits;
    }
    for (const uint32_t bits : {0u, 4u, 12u, 32u}) {
        conv.weight_bits = bits;
        EXPECT_EQ(kernel::check_command(conv), kernel::kCommandBadWeightWidth) << bits;
        // A refused command reads no parameters and writes nothing.
        std::vector<int16_t> arena(100, kGuard);
        EXPECT_EQ(kernel::run_layer(conv, arena.data(), arena.data(), nullptr, nullptr),
                  kernel::kCommandBadWeightWidth);
        EXPECT_EQ(arena, std::vector<int16_t>(100, kGuard));
    }
    kernel::LayerCommand pool = pool_command(3, 8, 8, 2, 2, 1);
    kernel::LayerCommand reorg{};
    reorg.op = kernel::kOpReorg;
    reorg.in_c = 4, reorg.in_h = reorg.in_w = 2, reorg.out_c = 16, reorg.out_h = reorg.out_w = 1;
    reorg.stride = 2, reorg.tile_cols = 2, reorg.output_bits = 16;
    for (kernel::LayerCommand c : {pool, reorg}) {
        c.weight_bits = 16;
        c.input_bits = 16;
        EXPECT_EQ(kernel::check_command(c), kernel::kCommandOk) << describe(c);
        for (const uint32_t bits : {0u, 8u}) {  // no weights: anything but the default is a host error
            c.weight_bits = bits;
            EXPECT_EQ(kernel::check_command(c), kernel::kCommandBadWeightWidth) << describe(c);
        }
    }
    EXPECT_STREQ(kernel::command_check_text(kernel::kCommandBadWeightWidth),
                 "weight width (weight_bits) must be 16 or 8 for conv, 16 for maxpool and reorg");
}

TEST(KernelLayers, InputWidthIsSixteenOrEightForConvAndTheOutputWidthElsewhere) {
    kernel::LayerCommand conv = small_conv_command();
    for (const uint32_t bits : {16u, 8u}) {
        conv.input_bits = bits;
        EXPECT_EQ(kernel::check_command(conv), kernel::kCommandOk) << bits;
    }
    for (const uint32_t bits : {0u, 4u, 12u, 32u}) {
        conv.input_bits = bits;
        EXPECT_EQ(kernel::check_command(conv), kernel::kCommandBadInputWidth) << bits;
    }
    kernel::LayerCommand pool = pool_command(3, 8, 8, 2, 2, 1);
    for (const uint32_t output_bits : {16u, 8u}) {
        pool.output_bits = output_bits;
        pool.input_bits = output_bits;
        EXPECT_EQ(kernel::check_command(pool), kernel::kCommandOk) << describe(pool);
        pool.input_bits = output_bits == 16u ? 8u : 16u;  // a maxpool cannot change the width
        EXPECT_EQ(kernel::check_command(pool), kernel::kCommandBadInputWidth) << describe(pool);
    }
    EXPECT_STREQ(kernel::command_check_text(kernel::kCommandBadInputWidth),
                 "input width (input_bits) must be 16 or 8 for conv, the output width for maxpool and reorg");
}

// Pair mode (8-bit input and weights: two output columns per multiplier) against the one-column path
// on the same 8-bit data: identical outputs over odd and even widths, strides 1 and 2, tiles that
// split the columns unevenly, and the whole 8-bit range (the -128 x -128 corner included).
TEST(KernelLayers, PairModeEqualsTheOneColumnPathOnTheSameEightBitData) {
    std::mt19937 rng(1608);
    std::uniform_int_distribution<int> value(-128, 127);
    struct Shape {
        int in_c, hw, out_c, k, s, pad, tile_cols;
    };
    for (const Shape& shape : {Shape{5, 17, 9, 3, 1, 1, 7}, Shape{3, 16, 4, 3, 2, 1, 3},
                               Shape{6, 9, 11, 1, 1, 0, 9}, Shape{2, 13, 3, 3, 1, 0, 2}}) {
        const int out_hw =
            static_cast<int>(kernel::conv_output_extent(shape.hw, shape.k, shape.s, shape.pad));
        std::vector<int16_t> input(static_cast<std::size_t>(shape.in_c) * shape.hw * shape.hw),
            weights(static_cast<std::size_t>(shape.out_c) * shape.in_c * shape.k * shape.k),
            bias(kernel::padded_bias_elements(shape.out_c, kernel::kTm));
        for (auto* v : {&input, &weights, &bias})
            for (int16_t& x : *v) x = static_cast<int16_t>(value(rng));
        input[0] = -128, weights[0] = -128;
        kernel::LayerCommand cmd{};
        cmd.op = kernel::kOpConv;
        cmd.in_c = shape.in_c, cmd.in_h = cmd.in_w = shape.hw, cmd.out_c = shape.out_c;
        cmd.out_h = cmd.out_w = out_hw;
        cmd.kernel_size = shape.k, cmd.stride = shape.s, cmd.pad = shape.pad, cmd.leaky = 1;
        cmd.bias_shift = 2, cmd.output_shift = 6;
        cmd.tile_rows = std::min(4, kernel::kTr), cmd.tile_cols = std::min(shape.tile_cols, kernel::kTc);
        cmd.output_bits = 16, cmd.weight_bits = 8;
        const std::vector<int16_t> words = reorder_for_kernel(weights, shape.out_c, shape.in_c, shape.k, 8);
        cmd.input_bits = 16;
        ASSERT_FALSE(kernel::conv_runs_in_pairs(cmd));
        std::mt19937 place(1);
        const KernelRun one_column = run_kernel_command(cmd, input, words, bias, place);
        cmd.input_bits = 8;
        ASSERT_TRUE(kernel::conv_runs_in_pairs(cmd));
        place.seed(1);
        const KernelRun pairs = run_kernel_command(cmd, input, words, bias, place);
        ASSERT_EQ(one_column.check, kernel::kCommandOk) << describe(cmd);
        ASSERT_EQ(pairs.check, kernel::kCommandOk) << describe(cmd);
        EXPECT_TRUE(pairs.guards_intact) << describe(cmd);
        EXPECT_EQ(pairs.output, one_column.output) << describe(cmd);
        // Same bursts: the pair mode changes the cycles; its 8-bit input moves one byte per element.
        EXPECT_EQ(pairs.traffic.fm_read_bursts, one_column.traffic.fm_read_bursts);
        EXPECT_EQ(2 * pairs.traffic.fm_read_bytes, one_column.traffic.fm_read_bytes);
        EXPECT_EQ(pairs.traffic.fm_write_bytes, one_column.traffic.fm_write_bytes);
        EXPECT_EQ(pairs.traffic.param_read_bytes, one_column.traffic.param_read_bytes);
    }
}

TEST(KernelLayers, NativeBuildMaximaMatchTheConfig) {
    const kernel::Maxima m = kernel::native_build_maxima();
    EXPECT_EQ(m.tm, kernel::kTm);
    EXPECT_EQ(m.tn, kernel::kTn);
    EXPECT_EQ(m.tr, kernel::kTr);
    EXPECT_EQ(m.tc, kernel::kTc);
    EXPECT_EQ(m.max_kernel, kernel::kMaxK);
    EXPECT_EQ(m.max_stride, kernel::kMaxS);
    EXPECT_EQ(m.int8_pairs, kernel::kInt8Pairs);
    // The identify command's answer says the same (the xrt and uio drivers read it from there).
    int16_t words[kernel::kFingerprintWords];
    kernel::fingerprint_words(words);
    EXPECT_EQ(words[kernel::kFpInt8Pairs], kernel::kInt8Pairs ? 1 : 0);
}

}  // namespace
}  // namespace fpgacnn::test

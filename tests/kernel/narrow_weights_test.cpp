// 8-bit conv weights in the parameter buffer (kernel/contract.hpp, kNarrowWeightsPerWord): two per
// 16-bit word, element 2i in the low byte and 2i+1 in the high byte, each (Tm, Tn) block on its own
// words; and the kernel computes the same bits from them as from the same weights stored 16-bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/weight_layout.hpp"
#include "kernel_harness.hpp"
#include "reference_ops.hpp"

namespace fpgacnn::test {
namespace {

/// The bytes of `words` as they lie in memory (the hosts and the FPGA are little-endian).
std::vector<int8_t> memory_bytes(const std::vector<int16_t>& words) {
    std::vector<int8_t> bytes(2 * words.size());
    std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
}

TEST(NarrowWeights, EveryPairOfBytesPacksAndUnpacksBack) {
    for (int low = -128; low <= 127; ++low) {
        for (int high = -128; high <= 127; ++high) {
            const int16_t word = arith::pack_narrow(static_cast<int16_t>(low), static_cast<int16_t>(high));
            ASSERT_EQ(arith::unpack_narrow(word, 0), low) << low << " " << high;
            ASSERT_EQ(arith::unpack_narrow(word, 1), high) << low << " " << high;
        }
    }
}

TEST(NarrowWeights, StorageWordsHalveEightBitBlocksRoundingUp) {
    EXPECT_EQ(arith::storage_words(9, arith::kDataBits), 9u);
    EXPECT_EQ(arith::storage_words(9, arith::kNarrowBits), 5u);
    EXPECT_EQ(arith::storage_words(128, arith::kNarrowBits), 64u);
    EXPECT_EQ(arith::storage_words(0, arith::kNarrowBits), 0u);
    // Per block, not per layer: 4 blocks of 3 elements take 4 x 2 words, not ceil(12 / 2).
    EXPECT_EQ(kernel::reordered_weight_words(4, 2, 1, 3, 1, arith::kNarrowBits), 4u * 2u);
    EXPECT_EQ(kernel::reordered_weight_words(4, 2, 1, 3, 1, arith::kDataBits), 4u * 3u);
}

TEST(NarrowWeights, PackedBufferHoldsElementPairsLowByteFirst) {
    // docs/kernel.md's example (M = N = 3, K = 1, Tm = Tn = 2, w[m][n] = 10m + n), negated for the
    // odd filters so the sign bit of both bytes is exercised:
    // re-ordered [0 -10 1 -11 | 2 -12 0 0 | 20 0 21 0 | 22 0 0 0].
    const kernel::WeightLayout layout{3, 3, 1, 2, 2};
    std::vector<int16_t> reordered(layout.total_elements(), 0);
    for (uint32_t m = 0; m < 3; ++m)
        for (uint32_t n = 0; n < 3; ++n)
            reordered[layout.index(m, n, 0, 0)] = static_cast<int16_t>((m % 2 == 1 ? -1 : 1) * (10 * m + n));
    ASSERT_EQ(reordered, (std::vector<int16_t>{0, -10, 1, -11, 2, -12, 0, 0, 20, 0, 21, 0, 22, 0, 0, 0}));

    std::vector<int16_t> words(layout.total_words(arith::kNarrowBits), kGuard);
    ASSERT_EQ(words.size(), 8u);
    kernel::store_weight_blocks(layout, reordered.data(), arith::kNarrowBits, words.data());
    // Byte i of the buffer is re-ordered element i: the blocks have an even element count.
    const std::vector<int8_t> bytes = memory_bytes(words);
    for (std::size_t i = 0; i < reordered.size(); ++i) EXPECT_EQ(bytes[i], reordered[i]) << "byte " << i;
    EXPECT_EQ(words[0], static_cast<int16_t>(0xF600));  // 0 low, -10 (0xF6) high

    std::vector<int16_t> wide(layout.total_words(arith::kDataBits), kGuard);
    kernel::store_weight_blocks(layout, reordered.data(), arith::kDataBits, wide.data());
    EXPECT_EQ(wide, reordered);
}

TEST(NarrowWeights, AnOddBlockEndsInAZeroHighByteAndTheNextBlockStartsOnAWord) {
    // Tm = 3, Tn = 1, K = 1: blocks of 3 elements take 2 words each.
    const kernel::WeightLayout layout{3, 2, 1, 3, 1};
    const std::vector<int16_t> reordered = {-128, 127, -1, 5, -6, 7};
    std::vector<int16_t> words(layout.total_words(arith::kNarrowBits), kGuard);
    ASSERT_EQ(words.size(), 4u);
    kernel::store_weight_blocks(layout, reordered.data(), arith::kNarrowBits, words.data());
    EXPECT_EQ(memory_bytes(words), (std::vector<int8_t>{-128, 127, -1, 0, 5, -6, 7, 0}));
}

TEST(NarrowWeights, KernelGivesTheSameBitsFromPackedAndWideWeights) {
    // Every byte value on every lane position: 3x3 conv, channel counts that leave partial Tm / Tn
    // groups, so the zero lanes and the last block of each row are packed too.
    std::mt19937 rng(16);
    std::uniform_int_distribution<int> byte(-128, 127), value(-3000, 3000);
    const int in_c = kernel::kTn + 3, out_c = kernel::kTm + 5, hw = 9;
    std::vector<int16_t> input(static_cast<std::size_t>(in_c) * hw * hw), weights(out_c * in_c * 9),
        bias(kernel::padded_bias_elements(out_c, kernel::kTm), 0);
    for (int16_t& x : input) x = static_cast<int16_t>(value(rng));
    for (int16_t& w : weights) w = static_cast<int16_t>(byte(rng));
    for (int i = 0; i < out_c; ++i) bias[i] = static_cast<int16_t>(value(rng));

    kernel::LayerCommand cmd{};
    cmd.op = kernel::kOpConv;
    cmd.in_c = in_c, cmd.in_h = cmd.in_w = hw, cmd.out_c = out_c, cmd.out_h = cmd.out_w = hw;
    cmd.kernel_size = 3, cmd.stride = 1, cmd.pad = 1, cmd.leaky = 1, cmd.bias_shift = 2, cmd.output_shift = 6;
    cmd.tile_rows = std::min(hw, kernel::kTr), cmd.tile_cols = std::min(hw, kernel::kTc);
    cmd.output_bits = 16;
    cmd.weight_bits = 16;
    cmd.input_bits = 16;
    const KernelRun wide =
        run_kernel_command(cmd, input, reorder_for_kernel(weights, out_c, in_c, 3), bias, rng);
    cmd.weight_bits = 8;
    const KernelRun narrow = run_kernel_command(
        cmd, input, reorder_for_kernel(weights, out_c, in_c, 3, arith::kNarrowBits), bias, rng);
    ASSERT_EQ(wide.check, kernel::kCommandOk);
    ASSERT_EQ(narrow.check, kernel::kCommandOk);
    EXPECT_TRUE(narrow.guards_intact);
    RefConv p{in_c, hw, hw, out_c, hw, hw, 3, 1, 1, arith::kActivationLeaky, 2, 6, 16};
    EXPECT_EQ(first_mismatch(narrow.output, reference_conv(p, input.data(), weights.data(), bias.data())),
              -1);
    EXPECT_EQ(narrow.output, wide.output);
    // Same bursts, half the weight words.
    EXPECT_EQ(narrow.traffic.param_read_bursts, wide.traffic.param_read_bursts);
    EXPECT_LT(narrow.traffic.param_read_bytes, wide.traffic.param_read_bytes);
}

}  // namespace
}  // namespace fpgacnn::test

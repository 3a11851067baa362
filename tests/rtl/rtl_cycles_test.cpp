// Cycles of representative commands on the small RTL build (Tm=8 Tn=4 Tr=Tc=8, the test memory
// model: 30-cycle reads, 4 in flight, 8 bytes a cycle), each checked bit for bit against the native
// kernel by the harness. The numbers are printed for docs/kernel.md ("The RTL twin"); the test asserts
// what must hold whatever the controller's schedule: the pair mode needs fewer cycles than int16 on
// the same layer, and a layer takes at least its MACs / (Tm * Tn) cycles.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "kernel_harness.hpp"

namespace fpgacnn::test {
namespace {

std::vector<int16_t> random_values(std::mt19937& rng, std::size_t count, int limit) {
    std::uniform_int_distribution<int> value(-limit, limit - 1);
    std::vector<int16_t> values(count);
    for (int16_t& v : values) v = static_cast<int16_t>(value(rng));
    return values;
}

uint64_t conv_cycles(int bits) {
    std::mt19937 rng(5);
    kernel::LayerCommand c{};
    c.op = kernel::kOpConv;
    c.in_c = 16, c.in_h = c.in_w = 26, c.out_c = 32, c.out_h = c.out_w = 26;
    c.kernel_size = 3, c.stride = 1, c.pad = 1, c.leaky = 1, c.bias_shift = 3, c.output_shift = 9;
    c.tile_rows = kernel::kTr, c.tile_cols = kernel::kTc;
    c.output_bits = c.weight_bits = c.input_bits = static_cast<uint32_t>(bits);
    const int limit = bits == arith::kNarrowBits ? 128 : 3000;
    const std::vector<int16_t> input = random_values(rng, 16u * 26 * 26, limit);
    const std::vector<int16_t> weights = random_values(rng, 32u * 16 * 9, limit);
    std::vector<int16_t> bias = random_values(rng, 32, 3000);
    bias.resize(kernel::padded_bias_elements(32, kernel::kTm), 0);
    const KernelRun run =
        run_kernel_command(c, input, reorder_for_kernel(weights, 32, 16, 3, bits), bias, rng);
    EXPECT_EQ(run.check, kernel::kCommandOk);
    EXPECT_TRUE(run.guards_intact);
    return last_rtl_cycles();
}

TEST(RtlCycles, ConvThreeByThreeSixteenToThirtyTwoChannels26x26) {
    const uint64_t wide = conv_cycles(arith::kDataBits);
    const uint64_t pairs = conv_cycles(arith::kNarrowBits);
    const uint64_t macs = 32ull * 16 * 26 * 26 * 9;
    std::printf(
        "RTL cycles, conv 3x3 16->32 26x26: int16 %llu, 8-bit pair mode %llu (MACs / (Tm*Tn) = %llu)\n",
        static_cast<unsigned long long>(wide), static_cast<unsigned long long>(pairs),
        static_cast<unsigned long long>(macs / (kernel::kTm * kernel::kTn)));
    EXPECT_GE(wide, macs / (kernel::kTm * kernel::kTn));
    EXPECT_LT(pairs, wide);
}

TEST(RtlCycles, MaxPoolAndReorg) {
    std::mt19937 rng(6);
    kernel::LayerCommand pool{};
    pool.op = kernel::kOpMaxPool;
    pool.in_c = pool.out_c = 32, pool.in_h = pool.in_w = 26, pool.out_h = pool.out_w = 13;
    pool.kernel_size = 2, pool.stride = 2, pool.pad = 0;
    pool.tile_rows = kernel::kTr, pool.tile_cols = kernel::kTc;
    pool.output_bits = pool.weight_bits = pool.input_bits = 16;
    const KernelRun pooled = run_kernel_command(pool, random_values(rng, 32u * 26 * 26, 30000), {}, {}, rng);
    EXPECT_EQ(pooled.check, kernel::kCommandOk);
    const uint64_t pool_cycles = last_rtl_cycles();

    kernel::LayerCommand reorg{};
    reorg.op = kernel::kOpReorg;
    reorg.in_c = 16, reorg.in_h = reorg.in_w = 26, reorg.out_c = 64, reorg.out_h = reorg.out_w = 13;
    reorg.stride = 2, reorg.tile_cols = kernel::kTc;
    reorg.output_bits = reorg.weight_bits = reorg.input_bits = 16;
    const KernelRun reorged =
        run_kernel_command(reorg, random_values(rng, 16u * 26 * 26, 30000), {}, {}, rng);
    EXPECT_EQ(reorged.check, kernel::kCommandOk);
    const uint64_t reorg_cycles = last_rtl_cycles();
    std::printf("RTL cycles, maxpool 2x2/2 32x26x26: %llu; reorg /2 16x26x26: %llu\n",
                static_cast<unsigned long long>(pool_cycles), static_cast<unsigned long long>(reorg_cycles));
    EXPECT_GT(pool_cycles, 32ull * 13 * 13 * 4 / kernel::kTn);
    EXPECT_GT(reorg_cycles, 16ull * 26 * 26 / 2);
}

}  // namespace
}  // namespace fpgacnn::test

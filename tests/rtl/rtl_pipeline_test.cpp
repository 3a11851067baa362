// The compute pipeline's read-modify-write of the accumulators at its tightest: with one-pixel tiles
// every iteration reads the accumulator the previous one is writing (the RTL forwards it), and with a
// one- or two-column tile in pair mode the second column is absent or present. Each case runs on the
// native kernel and the RTL through the harness, which compares the arenas byte for byte.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "kernel_harness.hpp"

namespace fpgacnn::test {
namespace {

std::vector<int16_t> values(std::mt19937& rng, std::size_t count, int limit) {
    std::uniform_int_distribution<int> value(-limit, limit - 1);
    std::vector<int16_t> v(count);
    for (int16_t& x : v) x = static_cast<int16_t>(value(rng));
    return v;
}

void run_conv(int bits, int tile_rows, int tile_cols) {
    std::mt19937 rng(static_cast<unsigned>(bits * 100 + tile_rows * 10 + tile_cols));
    kernel::LayerCommand c{};
    c.op = kernel::kOpConv;
    c.in_c = 9, c.in_h = c.in_w = 5, c.out_c = 10, c.out_h = c.out_w = 5;
    c.kernel_size = 3, c.stride = 1, c.pad = 1, c.leaky = 1, c.bias_shift = 2, c.output_shift = 7;
    c.tile_rows = static_cast<uint32_t>(tile_rows), c.tile_cols = static_cast<uint32_t>(tile_cols);
    c.output_bits = c.weight_bits = c.input_bits = static_cast<uint32_t>(bits);
    const int limit = bits == arith::kNarrowBits ? 128 : 2000;
    std::vector<int16_t> bias = values(rng, 10, 2000);
    bias.resize(kernel::padded_bias_elements(10, kernel::kTm), 0);
    const KernelRun run =
        run_kernel_command(c, values(rng, 9u * 25, limit),
                           reorder_for_kernel(values(rng, 10u * 9 * 9, limit), 10, 9, 3, bits), bias, rng);
    EXPECT_EQ(run.check, kernel::kCommandOk) << describe(c);
    EXPECT_TRUE(run.guards_intact) << describe(c);
}

TEST(RtlPipeline, OnePixelTilesAccumulateEveryTapAndGroup) {
    run_conv(arith::kDataBits, 1, 1);
    run_conv(arith::kNarrowBits, 1, 1);  // pair mode without a second column
}

TEST(RtlPipeline, PairModeTilesOfOneAndTwoColumns) {
    run_conv(arith::kNarrowBits, 1, 2);
    run_conv(arith::kNarrowBits, 2, 1);
    run_conv(arith::kNarrowBits, 3, 3);
}

}  // namespace
}  // namespace fpgacnn::test

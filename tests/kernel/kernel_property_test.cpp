// Property tests: hundreds of random layer configurations (odd sizes, channel counts that are not
// multiples of Tm/Tn, several tile sizes, full-range values that wrap the accumulator and saturate
// the output at 16 or 8 bits) must give exactly the naive reference's bits, and the kernel must never write
// outside its output tensor.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <vector>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "kernel_harness.hpp"
#include "reference_ops.hpp"

namespace fpgacnn::test {
namespace {

/// The random layers a property test draws: all of them, or the first 1/n with
/// FPGACNN_PROPERTY_TRIALS_DIVISOR=n (the fast label's share on the slower RTL builds, tests/CMakeLists.txt).
int property_trials(int all) {
    const char* divisor = std::getenv("FPGACNN_PROPERTY_TRIALS_DIVISOR");
    const int n = divisor != nullptr ? std::atoi(divisor) : 1;
    return n > 1 ? std::max(1, all / n) : all;
}

int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

/// Values at one of three magnitudes: small (typical activations), medium, full int16 range.
std::vector<int16_t> random_values(std::mt19937& rng, std::size_t count) {
    static const int magnitudes[] = {300, 6000, 32768};
    const int limit = magnitudes[uniform(rng, 0, 2)];
    std::uniform_int_distribution<int> value(-limit, limit - 1);
    std::vector<int16_t> values(count);
    for (int16_t& v : values) v = static_cast<int16_t>(value(rng));
    return values;
}

/// A tile size that is either the planner's choice (whole extent up to the maximum) or random.
int random_tile(std::mt19937& rng, int extent, int maximum) {
    if (uniform(rng, 0, 1) == 0) return std::min(extent, maximum);
    return uniform(rng, 1, maximum);
}

kernel::LayerCommand random_conv(std::mt19937& rng) {
    static const int kernel_sizes[] = {1, 3, 3, 1, 2};
    kernel::LayerCommand c{};
    c.op = kernel::kOpConv;
    for (;;) {
        const int k = std::min(kernel_sizes[uniform(rng, 0, 4)], kernel::kMaxK);
        const int s = uniform(rng, 1, std::min(2, kernel::kMaxS));
        const int pad = k == 3 ? (uniform(rng, 0, 4) == 0 ? 0 : 1) : uniform(rng, 0, k - 1);
        const int in_h = uniform(rng, std::max(1, k - 2 * pad), 61);
        const int in_w = uniform(rng, std::max(1, k - 2 * pad), 61);
        const int in_c = uniform(rng, 1, 41);
        const int out_c = uniform(rng, 1, 75);
        const int out_h = static_cast<int>(kernel::conv_output_extent(in_h, k, s, pad));
        const int out_w = static_cast<int>(kernel::conv_output_extent(in_w, k, s, pad));
        const long macs = static_cast<long>(out_c) * out_h * out_w * in_c * k * k;
        if (out_h < 1 || out_w < 1 || macs > 1500000) continue;
        c.in_c = in_c, c.in_h = in_h, c.in_w = in_w;
        c.out_c = out_c, c.out_h = out_h, c.out_w = out_w;
        c.kernel_size = k, c.stride = s, c.pad = pad;
        break;
    }
    c.leaky = uniform(rng, 0, 2);  // linear, leaky or relu (arith::kActivation*)
    c.bias_shift = uniform(rng, 0, 15);
    c.output_shift = uniform(rng, -3, 26);
    c.output_bits = uniform(rng, 0, 1) ? arith::kDataBits : arith::kNarrowBits;
    c.weight_bits = uniform(rng, 0, 1) ? arith::kDataBits : arith::kNarrowBits;
    // 8-bit input with 8-bit weights: the kernel's pair mode (two columns per multiplier).
    c.input_bits = uniform(rng, 0, 1) ? arith::kDataBits : arith::kNarrowBits;
    c.tile_rows = random_tile(rng, static_cast<int>(c.out_h), kernel::kTr);
    c.tile_cols = random_tile(rng, static_cast<int>(c.out_w), kernel::kTc);
    return c;
}

TEST(KernelProperty, ConvMatchesNaiveReferenceOnRandomLayers) {
    std::mt19937 rng(20240611);
    for (int trial = 0, trials = property_trials(300); trial < trials; ++trial) {
        const kernel::LayerCommand c = random_conv(rng);
        std::vector<int16_t> input = random_values(rng, static_cast<std::size_t>(c.in_c) * c.in_h * c.in_w);
        if (c.input_bits == arith::kNarrowBits)
            for (int16_t& x : input) x = arith::saturate_to_width(x % 200, arith::kNarrowBits);
        std::vector<int16_t> weights =
            random_values(rng, static_cast<std::size_t>(c.out_c) * c.in_c * c.kernel_size * c.kernel_size);
        // 8-bit weights span their whole range, -128 and 127 included (the sign bit of each byte).
        if (c.weight_bits == arith::kNarrowBits)
            for (int16_t& w : weights) w = arith::saturate_to_width(w % 200, arith::kNarrowBits);
        std::vector<int16_t> biases = random_values(rng, c.out_c);
        RefConv p{static_cast<int>(c.in_c),
                  static_cast<int>(c.in_h),
                  static_cast<int>(c.in_w),
                  static_cast<int>(c.out_c),
                  static_cast<int>(c.out_h),
                  static_cast<int>(c.out_w),
                  static_cast<int>(c.kernel_size),
                  static_cast<int>(c.stride),
                  static_cast<int>(c.pad),
                  c.leaky,
                  c.bias_shift,
                  c.output_shift,
                  static_cast<int>(c.output_bits)};
        const std::vector<int16_t> expected = reference_conv(p, input.data(), weights.data(), biases.data());

        biases.resize(kernel::padded_bias_elements(c.out_c, kernel::kTm), 0);
        const KernelRun run = run_kernel_command(
            c, input, reorder_for_kernel(weights, p.out_c, p.in_c, p.size, static_cast<int>(c.weight_bits)),
            biases, rng);
        ASSERT_EQ(run.check, kernel::kCommandOk) << "trial " << trial << ": " << describe(c);
        ASSERT_TRUE(run.guards_intact) << "trial " << trial << ": wrote outside its output: " << describe(c);
        const long at = first_mismatch(run.output, expected);
        ASSERT_EQ(at, -1) << "trial " << trial << ": " << describe(c) << "\n  first mismatch at element "
                          << at << ": kernel " << run.output[at] << ", reference " << expected[at];
    }
}

TEST(KernelProperty, MaxPoolMatchesNaiveReferenceOnRandomLayers) {
    std::mt19937 rng(7);
    for (int trial = 0, trials = property_trials(100); trial < trials; ++trial) {
        kernel::LayerCommand c{};
        c.op = kernel::kOpMaxPool;
        const int k = uniform(rng, 2, std::min(3, kernel::kMaxK));
        const int s = uniform(rng, 1, std::min(2, kernel::kMaxS));
        const int padding = uniform(rng, 0, 3) == 0 ? uniform(rng, 0, k) : k - 1;  // darknet default: k - 1
        const int in_h = uniform(rng, std::max(1, k - padding), 60);
        const int in_w = uniform(rng, std::max(1, k - padding), 60);
        c.in_c = c.out_c = uniform(rng, 1, 37);
        c.in_h = in_h, c.in_w = in_w;
        c.out_h = (in_h + padding - k) / s + 1;
        c.out_w = (in_w + padding - k) / s + 1;
        c.kernel_size = k, c.stride = s, c.pad = padding / 2;
        c.output_shift = uniform(rng, 0, 4) == 0 ? uniform(rng, -2, 3) : 0;
        c.output_bits = arith::kDataBits;
        c.input_bits = arith::kDataBits;
        c.weight_bits = 16;
        c.tile_rows = random_tile(rng, static_cast<int>(c.out_h), kernel::kTr);
        c.tile_cols = random_tile(rng, static_cast<int>(c.out_w), kernel::kTc);
        const std::vector<int16_t> input = random_values(rng, static_cast<std::size_t>(c.in_c) * in_h * in_w);
        const std::vector<int16_t> expected = reference_maxpool(c.in_c, in_h, in_w, c.out_h, c.out_w, k, s,
                                                                c.pad, c.output_shift, input.data());
        const KernelRun run = run_kernel_command(c, input, {}, {}, rng);
        ASSERT_EQ(run.check, kernel::kCommandOk) << "trial " << trial << ": " << describe(c);
        ASSERT_TRUE(run.guards_intact) << "trial " << trial << ": wrote outside its output: " << describe(c);
        const long at = first_mismatch(run.output, expected);
        ASSERT_EQ(at, -1) << "trial " << trial << ": " << describe(c) << "\n  first mismatch at element "
                          << at;
    }
}

TEST(KernelProperty, ReorgMatchesDarknetFormulaOnRandomLayers) {
    std::mt19937 rng(99);
    for (int trial = 0, trials = property_trials(60); trial < trials; ++trial) {
        kernel::LayerCommand c{};
        c.op = kernel::kOpReorg;
        const int s = uniform(rng, 1, std::min(2, kernel::kMaxS));
        const int out_c_base = uniform(rng, 1, 20);
        c.in_c = out_c_base * s * s;
        c.in_h = s * uniform(rng, 1, 24);
        c.in_w = s * uniform(rng, 1, 30);
        c.out_c = c.in_c * s * s;
        c.out_h = c.in_h / s;
        c.out_w = c.in_w / s;
        c.stride = s;
        c.output_shift = uniform(rng, 0, 4) == 0 ? uniform(rng, -2, 3) : 0;
        c.output_bits = arith::kDataBits;
        c.input_bits = arith::kDataBits;
        c.weight_bits = 16;
        c.tile_cols = random_tile(rng, static_cast<int>(c.in_w), kernel::kTc);
        const std::vector<int16_t> input =
            random_values(rng, static_cast<std::size_t>(c.in_c) * c.in_h * c.in_w);
        const std::vector<int16_t> expected =
            reference_reorg(c.in_c, c.in_h, c.in_w, s, c.output_shift, input.data());
        const KernelRun run = run_kernel_command(c, input, {}, {}, rng);
        ASSERT_EQ(run.check, kernel::kCommandOk) << "trial " << trial << ": " << describe(c);
        ASSERT_TRUE(run.guards_intact) << "trial " << trial << ": wrote outside its output: " << describe(c);
        const long at = first_mismatch(run.output, expected);
        ASSERT_EQ(at, -1) << "trial " << trial << ": " << describe(c) << "\n  first mismatch at element "
                          << at;
    }
}

}  // namespace
}  // namespace fpgacnn::test

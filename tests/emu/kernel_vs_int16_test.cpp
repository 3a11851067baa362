// The kernel against the CPU int16 backend's own layer operations (int16_ops.hpp) on random
// layers: the two implementations of the arithmetic contract must agree bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "arena_tensors.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/weight_layout.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::test {
namespace {

int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

std::vector<int16_t> random_values(std::mt19937& rng, std::size_t n, int limit) {
    std::vector<int16_t> v(n);
    for (int16_t& x : v) x = static_cast<int16_t>(uniform(rng, -limit, limit - 1));
    return v;
}

/// Runs a command with input at arena offset 0 and output right after its words, each at its width.
std::vector<int16_t> run_kernel(kernel::LayerCommand c, const std::vector<int16_t>& input,
                                const std::vector<int16_t>& params) {
    const std::size_t out_size = static_cast<std::size_t>(c.out_c) * c.out_h * c.out_w;
    std::vector<int16_t> arena(input.size() + out_size);
    const int input_bits = static_cast<int>(c.input_bits), output_bits = static_cast<int>(c.output_bits);
    write_tensor(arena, 0, input_bits, input);
    c.input_offset = 0;
    c.output_offset = static_cast<uint32_t>(2 * input.size() / arith::fm_element_bytes(output_bits));
    EXPECT_EQ(kernel::run_layer(c, arena.data(), arena.data(), params.data(), nullptr), kernel::kCommandOk);
    return read_tensor(arena, c.output_offset, out_size, output_bits);
}

Int16ConvArgs random_conv_args(std::mt19937& rng, int max_bias_shift, int min_output_shift,
                               int max_output_shift) {
    Int16ConvArgs a;
    a.size = uniform(rng, 0, 1) ? 3 : 1;
    a.stride = uniform(rng, 1, 2);
    a.pad = a.size == 3 ? 1 : 0;
    a.input = TensorShape{uniform(rng, 1, 37), uniform(rng, 1, 40), uniform(rng, 1, 40)};
    a.output = TensorShape{uniform(rng, 1, 50), (a.input.h + 2 * a.pad - a.size) / a.stride + 1,
                           (a.input.w + 2 * a.pad - a.size) / a.stride + 1};
    const int activation = uniform(rng, 0, 2);  // linear, leaky or relu
    a.leaky = activation == 1;
    a.relu = activation == 2;
    a.bias_shift = uniform(rng, 0, max_bias_shift);
    a.output_shift = uniform(rng, min_output_shift, max_output_shift);
    return a;
}

// The kernel's command for the layer, and its parameter buffer (re-ordered weights stored at the
// layer's weight width, padded biases).
kernel::LayerCommand conv_command(const Int16ConvArgs& a, const std::vector<int16_t>& weights,
                                  const std::vector<int16_t>& biases, std::vector<int16_t>& params) {
    const std::vector<int16_t> reordered =
        reorder_weights(weights, a.output.c, a.input.c, a.size, kernel::kTm, kernel::kTn);
    const kernel::WeightLayout layout{static_cast<uint32_t>(a.output.c), static_cast<uint32_t>(a.input.c),
                                      static_cast<uint32_t>(a.size), static_cast<uint32_t>(kernel::kTm),
                                      static_cast<uint32_t>(kernel::kTn)};
    params.assign(layout.total_words(a.weight_bits), 0);
    kernel::store_weight_blocks(layout, reordered.data(), a.weight_bits, params.data());
    kernel::LayerCommand c{};
    c.op = kernel::kOpConv;
    c.weight_offset = 0;
    c.bias_offset = static_cast<uint32_t>(params.size());
    params.insert(params.end(), biases.begin(), biases.end());
    params.resize(c.bias_offset + kernel::padded_bias_elements(a.output.c, kernel::kTm), 0);
    c.in_c = a.input.c, c.in_h = a.input.h, c.in_w = a.input.w;
    c.out_c = a.output.c, c.out_h = a.output.h, c.out_w = a.output.w;
    c.kernel_size = a.size, c.stride = a.stride, c.pad = a.pad, c.leaky = int16_activation_code(a);
    c.bias_shift = a.bias_shift, c.output_shift = a.output_shift;
    c.tile_rows = std::min<uint32_t>(c.out_h, kernel::kTr);
    c.tile_cols = std::min<uint32_t>(c.out_w, kernel::kTc);
    c.output_bits = static_cast<uint32_t>(a.output_bits);
    c.weight_bits = static_cast<uint32_t>(a.weight_bits);
    c.input_bits = static_cast<uint32_t>(a.input_bits);
    return c;
}

std::string describe(const Int16ConvArgs& a) {
    return std::to_string(a.input.c) + "x" + std::to_string(a.input.h) + "x" + std::to_string(a.input.w) +
           " -> " + std::to_string(a.output.c) + ", k" + std::to_string(a.size) + " s" +
           std::to_string(a.stride) + ", bias_shift " + std::to_string(a.bias_shift) + ", output_shift " +
           std::to_string(a.output_shift) + (a.leaky ? ", leaky" : "") + (a.relu ? ", relu" : "") + ", " +
           std::to_string(a.weight_bits) + "-bit weights, " + std::to_string(a.output_bits) + "-bit output";
}

std::vector<int16_t> reference(const Int16ConvArgs& a, const std::vector<int16_t>& weights,
                               const std::vector<int16_t>& biases, const std::vector<int16_t>& input) {
    std::vector<int16_t> out(a.output.size());
    int16_conv_reference(a, weights.data(), biases.data(), input.data(), out.data());
    return out;
}

// Runs the layer on the kernel and returns where it first differs from `expected` (empty: nowhere).
std::string kernel_mismatch(const Int16ConvArgs& a, const std::vector<int16_t>& weights,
                            const std::vector<int16_t>& biases, const std::vector<int16_t>& input,
                            const std::vector<int16_t>& expected) {
    std::vector<int16_t> params;
    const std::vector<int16_t> actual = run_kernel(conv_command(a, weights, biases, params), input, params);
    const auto diff = std::mismatch(actual.begin(), actual.end(), expected.begin());
    if (diff.first == actual.end()) return "";
    return describe(a) + ": element " + std::to_string(diff.first - actual.begin()) + " kernel " +
           std::to_string(*diff.first) + ", expected " + std::to_string(*diff.second);
}

TEST(KernelVsInt16, ConvMatchesInt16ReferenceAndPackedScalarPath) {
    std::mt19937 rng(31337);
    for (int trial = 0; trial < 120; ++trial) {
        const Int16ConvArgs a = random_conv_args(rng, 15, 0, 24);
        const int limit = uniform(rng, 0, 1) ? 32768 : 500;
        const std::vector<int16_t> input = random_values(rng, a.input.size(), limit);
        const std::vector<int16_t> weights = random_values(rng, a.weight_count(), limit);
        const std::vector<int16_t> biases = random_values(rng, static_cast<std::size_t>(a.output.c), limit);

        const std::vector<int16_t> expected = reference(a, weights, biases, input);
        std::vector<int16_t> packed(a.output.size());
        Int16PackedConv(a, weights.data(), biases.data(), Int16Isa::Scalar).run(input.data(), packed.data());
        ASSERT_EQ(packed, expected) << "trial " << trial << ": the int16 backend's own paths disagree";

        ASSERT_EQ(kernel_mismatch(a, weights, biases, input, expected), "") << "trial " << trial;
    }
}

// An 8-bit conv layer (inputs and weights in [-128, 127], the weights packed two per word in the
// kernel's parameter buffer; with 8-bit input the kernel runs in pair mode) stores requantize_to_width(acc,
// shift, leaky, 8) on the kernel and the CPU backend alike: the 16-bit result clamped to [-128, 127], since
// both saturations clamp the same rounded value. The shifts leave many outputs outside 8 bits.
TEST(KernelVsInt16, EightBitConvOutputsAreTheInt16ReferenceClamped) {
    std::mt19937 rng(1616);
    std::size_t clamped = 0, inside = 0;
    for (int trial = 0; trial < 60; ++trial) {
        Int16ConvArgs a = random_conv_args(rng, 8, 4, 12);
        a.output_bits = arith::kNarrowBits;
        a.weight_bits = arith::kNarrowBits;
        // Every other trial with 8-bit input too: the kernel's pair mode against the CPU's vpdpbusd path.
        if (trial % 2 == 1) a.input_bits = arith::kNarrowBits;
        const std::vector<int16_t> input = random_values(rng, a.input.size(), 128);
        const std::vector<int16_t> weights = random_values(rng, a.weight_count(), 128);
        const std::vector<int16_t> biases = random_values(rng, static_cast<std::size_t>(a.output.c), 128);

        Int16ConvArgs wide = a;
        wide.output_bits = arith::kDataBits;
        std::vector<int16_t> expected = reference(wide, weights, biases, input);
        for (int16_t& v : expected) {
            const bool fits = v >= -128 && v <= 127;
            ++(fits ? inside : clamped);
            v = static_cast<int16_t>(std::clamp<int>(v, -128, 127));
        }
        ASSERT_EQ(reference(a, weights, biases, input), expected)
            << "the CPU reference at 8 bits, " << describe(a);

        ASSERT_EQ(kernel_mismatch(a, weights, biases, input, expected), "") << "trial " << trial;
    }
    // Both kinds in quantity: a kernel that ignored output_bits, or clamped everything, would fail.
    EXPECT_GT(clamped, 1000u);
    EXPECT_GT(inside, 1000u);
}

TEST(KernelVsInt16, MaxPoolAndReorgMatchTheInt16Backend) {
    std::mt19937 rng(4242);
    for (int trial = 0; trial < 60; ++trial) {
        Layer pool;
        pool.type = LayerType::MaxPool;
        MaxPoolParams p;
        p.size = uniform(rng, 2, 3);
        p.stride = uniform(rng, 1, 2);
        p.padding = p.size - 1;
        pool.params = p;
        pool.input = TensorShape{uniform(rng, 1, 20), uniform(rng, 1, 33), uniform(rng, 1, 33)};
        pool.output = TensorShape{pool.input.c, (pool.input.h + p.padding - p.size) / p.stride + 1,
                                  (pool.input.w + p.padding - p.size) / p.stride + 1};
        const std::vector<int16_t> input = random_values(rng, pool.input.size(), 32768);
        std::vector<int16_t> expected(pool.output.size());
        int16_maxpool(pool, input.data(), expected.data());
        kernel::LayerCommand c{};
        c.op = kernel::kOpMaxPool;
        c.in_c = c.out_c = pool.input.c, c.in_h = pool.input.h, c.in_w = pool.input.w;
        c.out_h = pool.output.h, c.out_w = pool.output.w;
        c.kernel_size = p.size, c.stride = p.stride, c.pad = p.padding / 2;
        c.tile_rows = std::min<uint32_t>(c.out_h, kernel::kTr);
        c.tile_cols = std::min<uint32_t>(c.out_w, kernel::kTc);
        c.output_bits = 16;
        c.weight_bits = 16;
        c.input_bits = 16;
        ASSERT_EQ(run_kernel(c, input, {0}), expected) << "maxpool trial " << trial;

        Layer reorg;
        reorg.type = LayerType::Reorg;
        reorg.params = ReorgParams{2};
        reorg.input = TensorShape{4 * uniform(rng, 1, 10), 2 * uniform(rng, 1, 15), 2 * uniform(rng, 1, 15)};
        reorg.output = TensorShape{reorg.input.c * 4, reorg.input.h / 2, reorg.input.w / 2};
        const std::vector<int16_t> reorg_input = random_values(rng, reorg.input.size(), 32768);
        std::vector<int16_t> reorg_expected(reorg.output.size());
        int16_reorg(reorg, reorg_input.data(), reorg_expected.data());
        kernel::LayerCommand r{};
        r.op = kernel::kOpReorg;
        r.in_c = reorg.input.c, r.in_h = reorg.input.h, r.in_w = reorg.input.w;
        r.out_c = reorg.output.c, r.out_h = reorg.output.h, r.out_w = reorg.output.w;
        r.stride = 2;
        r.tile_cols = std::min<uint32_t>(r.in_w, kernel::kTc);
        r.output_bits = 16;
        r.weight_bits = 16;
        r.input_bits = 16;
        ASSERT_EQ(run_kernel(r, reorg_input, {0}), reorg_expected) << "reorg trial " << trial;
    }
}

// Contract 7's ops against the CPU engine's int16_upsample / int16_shortcut (the code the engine runs on
// the host): random shapes, widths (the shortcut's operands each 16 or 8), exponents, activations and
// row segments.
TEST(KernelVsInt16, UpsampleAndShortcutEqualTheEngine) {
    if (!kernel::kUpsampleShortcut) GTEST_SKIP() << "this kernel build has no upsample / shortcut ops";
    std::mt19937 rng(33);
    for (int trial = 0; trial < 40; ++trial) {
        const int bits = uniform(rng, 0, 1) ? arith::kNarrowBits : arith::kDataBits;
        Layer up;
        up.type = LayerType::Upsample;
        const int s = uniform(rng, 1, kernel::kMaxS);
        up.params = UpsampleParams{s};
        up.input = TensorShape{uniform(rng, 1, 12), uniform(rng, 1, 14), uniform(rng, 1, 30)};
        up.output = TensorShape{up.input.c, up.input.h * s, up.input.w * s};
        const std::vector<int16_t> in = random_values(rng, up.input.size(), bits == 8 ? 128 : 32768);
        std::vector<int16_t> expected(up.output.size());
        int16_upsample(up, in.data(), expected.data());
        kernel::LayerCommand u{};
        u.op = kernel::kOpUpsample;
        u.in_c = u.out_c = up.input.c, u.in_h = up.input.h, u.in_w = up.input.w;
        u.out_h = up.output.h, u.out_w = up.output.w;
        u.kernel_size = 1, u.stride = s;
        u.tile_rows = 1, u.tile_cols = uniform(rng, 1, 40);
        u.output_bits = u.input_bits = bits, u.weight_bits = 16;
        ASSERT_EQ(run_kernel(u, in, {0}), expected) << "upsample trial " << trial;

        Layer sc;
        sc.type = LayerType::Shortcut;
        // Index = the activation's code (arith::kActivationLinear, kActivationLeaky, kActivationRelu).
        const Activation activations[] = {Activation::Linear, Activation::Leaky, Activation::Relu};
        const int code = uniform(rng, 0, 2);
        sc.params = ShortcutParams{0, activations[code]};
        sc.input = sc.output = TensorShape{uniform(rng, 1, 12), uniform(rng, 1, 14), uniform(rng, 1, 30)};
        const int b_bits = uniform(rng, 0, 1) ? arith::kNarrowBits : arith::kDataBits;
        Int16ShortcutArgs args;
        args.input_q = uniform(rng, -4, 14);
        args.added_q = std::clamp(args.input_q + uniform(rng, -4, 4), -8, 24);
        args.output_q = std::max(args.input_q, args.added_q) - uniform(rng, -kShortcutMaxOutputGain, 4);
        args.output_bits = bits;
        const std::vector<int16_t> a = random_values(rng, sc.output.size(), bits == 8 ? 128 : 32768);
        const std::vector<int16_t> b = random_values(rng, sc.output.size(), b_bits == 8 ? 128 : 32768);
        std::vector<int16_t> sum(sc.output.size());
        int16_shortcut(sc, args, a.data(), b.data(), sc.output, sum.data());
        kernel::LayerCommand c{};
        c.op = kernel::kOpShortcut;
        c.in_c = c.out_c = sc.output.c, c.in_h = c.out_h = sc.output.h, c.in_w = c.out_w = sc.output.w;
        c.kernel_size = 1, c.stride = 1;
        c.leaky = static_cast<uint32_t>(code);
        c.bias_shift = args.input_q - args.added_q;
        c.output_shift = std::max(args.input_q, args.added_q) - args.output_q;
        c.tile_rows = 1, c.tile_cols = uniform(rng, 1, 40);
        c.output_bits = c.input_bits = bits, c.weight_bits = b_bits;
        // a then b in the arena at their widths, the output after both.
        const std::size_t n = sc.output.size();
        std::vector<int16_t> arena(3 * n + 4);
        write_tensor(arena, 0, bits, a);
        c.input_offset = 0;
        const std::size_t b_byte = 2 * n;
        c.error_offset = static_cast<uint32_t>(b_byte / arith::fm_element_bytes(b_bits));
        write_tensor(arena, c.error_offset, b_bits, b);
        c.output_offset = static_cast<uint32_t>(4 * n / arith::fm_element_bytes(bits));
        ASSERT_EQ(kernel::run_layer(c, arena.data(), arena.data(), nullptr, nullptr), kernel::kCommandOk);
        ASSERT_EQ(read_tensor(arena, c.output_offset, n, bits), sum) << "shortcut trial " << trial;
    }
}

}  // namespace
}  // namespace fpgacnn::test

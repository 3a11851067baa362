// Contract 7's upsample and shortcut ops on the kernel (kernels/src/upsample_shortcut_layer.hpp) against
// direct references written from darknet's loops and docs/arithmetic.md "Shortcut on int16", on random
// shapes, widths, exponents, activations and row segments, with guard words around every tensor. In a
// build without the ops (FPGACNN_UPSAMPLE_SHORTCUT=0, which the RTL variant is, as the RTL twin lacks
// them) the same commands must be refused without a byte moved.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "arena_tensors.hpp"
#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#ifdef FPGACNN_KERNEL_TEST_RTL
#include "rtl_kernel_check.hpp"
#endif

namespace fpgacnn::test {
namespace {

constexpr int16_t kGuardWord = 0x5A5A;

int uniform(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

std::vector<int16_t> random_tensor(std::mt19937& rng, std::size_t n, int bits) {
    const int limit = bits == arith::kNarrowBits ? 128 : 32768;
    std::vector<int16_t> v(n);
    for (int16_t& x : v) x = static_cast<int16_t>(uniform(rng, -limit, limit - 1));
    return v;
}

/// An arena with the tensors at gaps of guard words: the inputs' offsets are filled in `command`
/// (input_offset, and error_offset when `second` is not empty), the output's too.
struct ElementwiseRun {
    std::vector<int16_t> output;
    kernel::CommandCheck check = kernel::kCommandOk;
    bool guards_intact = true;
    kernel::TrafficCounters traffic{};
};

ElementwiseRun run(kernel::LayerCommand& c, const std::vector<int16_t>& first, int first_bits,
                   const std::vector<int16_t>& second, int second_bits, std::mt19937& rng) {
    const std::size_t out_elements = static_cast<std::size_t>(c.out_c) * c.out_h * c.out_w;
    const int out_bits = static_cast<int>(c.output_bits);
    std::size_t cursor = 2 * static_cast<std::size_t>(uniform(rng, 0, 20));  // bytes
    const auto place = [&](int bits, std::size_t count) {
        const std::size_t size = arith::fm_element_bytes(bits);
        if (size == 1) cursor += rng() & 1u;  // 8-bit tensors start at either byte of a word
        cursor = (cursor + size - 1) / size * size;
        const std::size_t at = cursor;
        cursor += size * count + 2 * static_cast<std::size_t>(uniform(rng, 0, 20));
        return at;
    };
    const std::size_t first_byte = place(first_bits, first.size());
    const std::size_t second_byte = second.empty() ? 0 : place(second_bits, second.size());
    const std::size_t out_byte = place(out_bits, out_elements);
    std::vector<int16_t> arena(cursor / 2 + 2, kGuardWord);
    c.input_offset = static_cast<uint32_t>(first_byte / arith::fm_element_bytes(first_bits));
    write_tensor(arena, c.input_offset, first_bits, first);
    if (!second.empty()) {
        c.error_offset = static_cast<uint32_t>(second_byte / arith::fm_element_bytes(second_bits));
        write_tensor(arena, c.error_offset, second_bits, second);
    }
    c.output_offset = static_cast<uint32_t>(out_byte / arith::fm_element_bytes(out_bits));
    const std::vector<int16_t> before = arena;
    const std::vector<int16_t> params(8, kGuardWord);
    ElementwiseRun r;
    r.check = kernel::run_layer(c, arena.data(), arena.data(), params.data(), &r.traffic);
#ifdef FPGACNN_KERNEL_TEST_RTL
    expect_rtl_matches_native(c, before, arena, params, r.check);
#endif
    r.output = read_tensor(arena, c.output_offset, out_elements, out_bits);
    const auto* a = reinterpret_cast<const unsigned char*>(arena.data());
    const auto* b = reinterpret_cast<const unsigned char*>(before.data());
    const std::size_t out_end = out_byte + arith::fm_element_bytes(out_bits) * out_elements;
    for (std::size_t i = 0; i < 2 * arena.size(); ++i) {
        const bool in_output = r.check == kernel::kCommandOk && i >= out_byte && i < out_end;
        if (!in_output && a[i] != b[i]) r.guards_intact = false;
    }
    return r;
}

kernel::LayerCommand elementwise_command(uint32_t op, int c, int h, int w, int bits, std::mt19937& rng) {
    kernel::LayerCommand cmd{};
    cmd.op = op;
    cmd.in_c = cmd.out_c = static_cast<uint32_t>(c);
    cmd.in_h = cmd.out_h = static_cast<uint32_t>(h);
    cmd.in_w = cmd.out_w = static_cast<uint32_t>(w);
    cmd.kernel_size = 1;
    cmd.stride = 1;
    cmd.tile_rows = 1;
    // Mostly segments shorter than the rows (split rows), sometimes the longest.
    cmd.tile_cols =
        static_cast<uint32_t>(uniform(rng, 0, 3) == 0 ? kernel::kMaxElementwiseSegment : uniform(rng, 1, 32));
    cmd.output_bits = cmd.input_bits = static_cast<uint32_t>(bits);
    cmd.weight_bits = 16;
    return cmd;
}

// darknet's upsample_cpu: out[k][y][x] = in[k][y / s][x / s].
std::vector<int16_t> reference_upsample(const std::vector<int16_t>& in, int c, int h, int w, int s, int shift,
                                        int bits) {
    std::vector<int16_t> out(static_cast<std::size_t>(c) * h * s * w * s);
    for (int k = 0; k < c; ++k)
        for (int y = 0; y < h * s; ++y)
            for (int x = 0; x < w * s; ++x)
                out[(static_cast<std::size_t>(k) * h * s + y) * w * s + x] = arith::saturate_to_width(
                    arith::round_shift(in[(static_cast<std::size_t>(k) * h + y / s) * w + x / s], shift),
                    bits);
    return out;
}

// docs/arithmetic.md "Shortcut on int16", written out: Qs = max(Qa, Qb), s = a 2^(Qs-Qa) + b 2^(Qs-Qb),
// one rounding to Qout with the activation, saturation to the output width.
int16_t reference_shortcut(int16_t a, int qa, int16_t b, int qb, int qout, uint32_t activation, int bits) {
    const int qs = std::max(qa, qb);
    const int64_t s = a * (int64_t{1} << (qs - qa)) + b * (int64_t{1} << (qs - qb));
    const int shift = qs - qout;
    if (s < 0 && activation == arith::kActivationRelu) return 0;
    if (s < 0 && activation == arith::kActivationLeaky)
        return arith::saturate_to_width(arith::round_shift(s * 13107, 17 + shift), bits);
    return arith::saturate_to_width(arith::round_shift(s, shift), bits);
}

TEST(KernelUpsampleShortcut, UpsampleReplicatesEachPixelIntoAStrideBlock) {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 60; ++trial) {
        const int bits = uniform(rng, 0, 1) ? arith::kNarrowBits : arith::kDataBits;
        const int c = uniform(rng, 1, 9), h = uniform(rng, 1, 13), w = uniform(rng, 1, 21);
        const int s = uniform(rng, 1, kernel::kMaxS);
        // Upsample keeps its exponent in every quantized network (shift 0); other shifts still requantize.
        const int shift = trial % 3 == 0 ? uniform(rng, -2, 3) : 0;
        kernel::LayerCommand cmd = elementwise_command(kernel::kOpUpsample, c, h, w, bits, rng);
        cmd.stride = static_cast<uint32_t>(s);
        cmd.out_h = static_cast<uint32_t>(h * s);
        cmd.out_w = static_cast<uint32_t>(w * s);
        cmd.output_shift = shift;
        const std::vector<int16_t> in = random_tensor(rng, static_cast<std::size_t>(c) * h * w, bits);
        const ElementwiseRun r = run(cmd, in, bits, {}, 16, rng);
        EXPECT_TRUE(r.guards_intact) << "trial " << trial;
        if (!kernel::kUpsampleShortcut) {
            EXPECT_EQ(r.check, kernel::kCommandBadOp) << "a build without the ops must refuse them";
            continue;
        }
        ASSERT_EQ(r.check, kernel::kCommandOk) << kernel::command_check_text(r.check);
        ASSERT_EQ(r.output, reference_upsample(in, c, h, w, s, shift, bits)) << "trial " << trial;
        // Each output row segment reads the input columns it covers once (a segment that does not end on
        // a stride boundary shares its last column with the next); the output is written once.
        std::size_t reads = 0;
        const int segment = static_cast<int>(cmd.tile_cols);
        for (int x0 = 0; x0 < w * s; x0 += segment)
            reads += static_cast<std::size_t>((std::min(x0 + segment, w * s) - 1) / s - x0 / s + 1);
        EXPECT_EQ(r.traffic.fm_read_bytes, reads * c * h * arith::fm_element_bytes(bits));
        if (segment % s == 0) {
            EXPECT_EQ(reads, static_cast<std::size_t>(w));
        }
        EXPECT_EQ(r.traffic.fm_write_bytes, r.output.size() * arith::fm_element_bytes(bits));
    }
}

TEST(KernelUpsampleShortcut, ShortcutAddsAtAlignedExponentsWithOneRounding) {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 80; ++trial) {
        const int a_bits = uniform(rng, 0, 1) ? arith::kNarrowBits : arith::kDataBits;
        const int b_bits = uniform(rng, 0, 1) ? arith::kNarrowBits : arith::kDataBits;
        const int c = uniform(rng, 1, 9), h = uniform(rng, 1, 11), w = uniform(rng, 1, 30);
        const int qa = uniform(rng, -8, 24);
        // Mostly near exponents (real networks), sometimes the full range.
        const int qb = trial % 4 == 0 ? uniform(rng, -8, 24) : std::clamp(qa + uniform(rng, -3, 3), -8, 24);
        const int qs = std::max(qa, qb);
        const int qout = std::max(-8, qs - uniform(rng, -arith::kShortcutMaxOutputGain, 6));
        const uint32_t activation = static_cast<uint32_t>(uniform(rng, 0, 2));
        kernel::LayerCommand cmd = elementwise_command(kernel::kOpShortcut, c, h, w, a_bits, rng);
        cmd.weight_bits = static_cast<uint32_t>(b_bits);
        cmd.bias_shift = qa - qb;
        cmd.output_shift = qs - qout;
        cmd.leaky = activation;
        const std::size_t n = static_cast<std::size_t>(c) * h * w;
        const std::vector<int16_t> a = random_tensor(rng, n, a_bits);
        const std::vector<int16_t> b = random_tensor(rng, n, b_bits);
        const ElementwiseRun r = run(cmd, a, a_bits, b, b_bits, rng);
        EXPECT_TRUE(r.guards_intact) << "trial " << trial;
        if (!kernel::kUpsampleShortcut) {
            EXPECT_EQ(r.check, kernel::kCommandBadOp) << "a build without the ops must refuse them";
            continue;
        }
        ASSERT_EQ(r.check, kernel::kCommandOk) << kernel::command_check_text(r.check);
        std::vector<int16_t> expected(n);
        for (std::size_t i = 0; i < n; ++i)
            expected[i] = reference_shortcut(a[i], qa, b[i], qb, qout, activation, a_bits);
        ASSERT_EQ(r.output, expected)
            << "trial " << trial << " Qa " << qa << " Qb " << qb << " Qout " << qout;
        EXPECT_EQ(r.traffic.fm_read_bytes,
                  n * (arith::fm_element_bytes(a_bits) + arith::fm_element_bytes(b_bits)));
        EXPECT_EQ(r.traffic.fm_write_bytes, n * arith::fm_element_bytes(a_bits));
    }
}

TEST(KernelUpsampleShortcut, CommandsOutsideTheRulesAreRefusedWithoutWriting) {
    std::mt19937 rng(3);
    const std::vector<int16_t> a = random_tensor(rng, 2 * 4 * 5, 16);
    const auto refused = [&](kernel::LayerCommand cmd, kernel::CommandCheck expected) {
        const bool shortcut = cmd.op == kernel::kOpShortcut;
        const ElementwiseRun r = run(cmd, a, 16, shortcut ? a : std::vector<int16_t>{}, 16, rng);
        EXPECT_EQ(r.check, kernel::kUpsampleShortcut ? expected : kernel::kCommandBadOp)
            << kernel::command_check_text(r.check);
        EXPECT_TRUE(r.guards_intact);
    };
    kernel::LayerCommand shortcut = elementwise_command(kernel::kOpShortcut, 2, 4, 5, 16, rng);
    kernel::LayerCommand bad = shortcut;
    bad.output_shift = -arith::kShortcutMaxOutputGain - 1;  // Qout too far above Qs: int64 could overflow
    refused(bad, kernel::kCommandBadShift);
    bad = shortcut;
    bad.bias_shift = kernel::kShortcutMaxAlignShift + 1;
    refused(bad, kernel::kCommandBadShift);
    bad = shortcut;
    bad.out_w = 4;  // the kernel adds tensors of one shape only
    refused(bad, kernel::kCommandShapeMismatch);
    bad = shortcut;
    bad.weight_bits = 12;
    refused(bad, kernel::kCommandBadElementwise);
    bad = shortcut;
    bad.leaky = arith::kActivationCodes;
    refused(bad, kernel::kCommandBadActivation);
    bad = shortcut;
    bad.input_bits = 8;  // the output carries the previous layer's width
    refused(bad, kernel::kCommandBadInputWidth);

    kernel::LayerCommand upsample = elementwise_command(kernel::kOpUpsample, 2, 4, 5, 16, rng);
    upsample.stride = 2, upsample.out_h = 8, upsample.out_w = 10;
    bad = upsample;
    bad.out_w = 9;
    refused(bad, kernel::kCommandShapeMismatch);
    bad = upsample;
    bad.leaky = arith::kActivationLeaky;  // darknet's upsample has no activation
    refused(bad, kernel::kCommandBadElementwise);
    bad = upsample;
    bad.stride = static_cast<uint32_t>(kernel::kMaxS + 1);
    refused(bad, kernel::kCommandBadWindow);
    bad = upsample;
    bad.tile_cols = static_cast<uint32_t>(kernel::kMaxElementwiseSegment + 1);
    refused(bad, kernel::kCommandBadTile);
}

}  // namespace
}  // namespace fpgacnn::test

// The packed conv of every ISA path against the scalar reference, bit for bit, on randomized
// shapes (odd sizes, channel counts that are not multiples of any vector width, K 1 and 3,
// stride 1 and 2, pad 0 and 1, leaky and linear, random shifts, full-range int16 data so the
// int32 accumulator wraps); and the reference itself on hand-computed examples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "../../runtime/src/core/thread_pool.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16_test_support.hpp"

namespace fpgacnn {
namespace {

Int16ConvArgs conv_args(TensorShape input, int filters, int size, int stride, int pad, bool leaky,
                        int bias_shift, int output_shift) {
    Int16ConvArgs a;
    a.input = input;
    a.size = size;
    a.stride = stride;
    a.pad = pad;
    a.leaky = leaky;
    a.bias_shift = bias_shift;
    a.output_shift = output_shift;
    a.output = {filters, (input.h + 2 * pad - size) / stride + 1, (input.w + 2 * pad - size) / stride + 1};
    return a;
}

std::vector<int16_t> reference(const Int16ConvArgs& a, const std::vector<int16_t>& w,
                               const std::vector<int16_t>& b, const std::vector<int16_t>& x) {
    std::vector<int16_t> out(a.output.size());
    int16_conv_reference(a, w.data(), b.data(), x.data(), out.data());
    return out;
}

std::vector<int16_t> packed(const Int16ConvArgs& a, const std::vector<int16_t>& w,
                            const std::vector<int16_t>& b, const std::vector<int16_t>& x, Int16Isa isa,
                            ThreadPool* pool = nullptr) {
    std::vector<int16_t> out(a.output.size(), 12345);
    Int16PackedConv conv(a, w.data(), b.data(), isa);
    conv.run(x.data(), out.data(), pool);
    return out;
}

TEST(Int16Conv, EveryPathMatchesTheReferenceBitForBitOnRandomShapes) {
    std::mt19937 rng(20240611);
    auto pick = [&rng](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const std::vector<Int16Isa> isas = supported_int16_isas();
    ThreadPool pool(2);
    int wrapped_cases = 0;
    int narrowed_cases = 0;  // 8-bit outputs whose clamp changed a value
    int relu_cases_with_negatives = 0;
    const int kCases = 240;
    for (int n = 0; n < kCases; ++n) {
        const int channel_choices[] = {1, 2, 3, 5, 7, 8, 15, 16, 17, 31, 33, 131};
        const int channels = channel_choices[pick(0, 11)];
        const int filter_choices[] = {1, 3, 7, 8, 9, 16, 17, 31, 32, 33, 40};
        const int filters = filter_choices[pick(0, 10)];
        const int size = pick(0, 2) == 0 ? 1 : 3;
        const int stride = pick(1, 2);
        const int pad = size == 3 ? pick(0, 1) : 0;
        const int h = pick(size, 13);
        const int w = pick(size, 13);
        const uint32_t activation = static_cast<uint32_t>(pick(0, 2));  // linear, leaky or relu
        const bool leaky = activation == arith::kActivationLeaky;
        const int bias_shift = pick(arith::kModelMinBiasShift, arith::kModelMaxBiasShift);
        const int output_shift = pick(arith::kModelMinOutputShift, arith::kModelMaxOutputShift);
        Int16ConvArgs a =
            conv_args({channels, h, w}, filters, size, stride, pad, leaky, bias_shift, output_shift);
        a.relu = activation == arith::kActivationRelu;
        // A third of the layers are 8-bit (docs/arithmetic.md, "Per-layer widths": inputs, weights and
        // outputs; AVX-512 VNNI runs them on its u8 x s8 path); the others full-range data (the
        // accumulator wraps) or small values like real activations.
        a.output_bits = pick(0, 2) == 0 ? arith::kNarrowBits : arith::kDataBits;
        const bool narrow = a.output_bits == arith::kNarrowBits;
        a.input_bits = a.weight_bits = a.output_bits;
        const bool full_range = !narrow && pick(0, 3) != 0;
        const int lo = full_range ? -32768 : narrow ? -128 : -300;
        const int hi = full_range ? 32767 : narrow ? 127 : 300;
        const auto weights = test::random_int16(rng, a.weight_count(), lo, hi);
        const auto biases = test::random_int16(rng, static_cast<std::size_t>(filters), lo, hi);
        const auto input = test::random_int16(rng, a.input.size(), lo, hi);
        if (full_range && channels * size * size >= 3) ++wrapped_cases;
        const auto expected = reference(a, weights, biases, input);
        if (narrow) {
            Int16ConvArgs wide = a;
            wide.output_bits = arith::kDataBits;
            const auto wide_out = reference(wide, weights, biases, input);
            for (std::size_t i = 0; i < expected.size(); ++i) {
                ASSERT_EQ(expected[i], arith::saturate_to_width(wide_out[i], arith::kNarrowBits));
            }
            narrowed_cases += wide_out != expected ? 1 : 0;
        }
        if (a.relu) {
            // The reference's relu is its linear output with the negatives at 0.
            Int16ConvArgs linear = a;
            linear.relu = false;
            const auto linear_out = reference(linear, weights, biases, input);
            bool zeroed = false;
            for (std::size_t i = 0; i < expected.size(); ++i) {
                ASSERT_EQ(expected[i], std::max<int16_t>(linear_out[i], 0)) << "case " << n;
                zeroed = zeroed || linear_out[i] < 0;
            }
            relu_cases_with_negatives += zeroed ? 1 : 0;
        }
        for (Int16Isa isa : isas) {
            const auto got = packed(a, weights, biases, input, isa, n % 2 == 0 ? &pool : nullptr);
            ASSERT_EQ(got, expected) << isa_name(isa) << " case " << n << ": " << channels << "x" << h << "x"
                                     << w << " -> " << filters << " K" << size << " S" << stride << " P"
                                     << pad << " activation " << activation << " bias_shift " << bias_shift
                                     << " output_shift " << output_shift << " output_bits " << a.output_bits;
        }
    }
    EXPECT_GT(wrapped_cases, kCases / 3);
    EXPECT_GT(narrowed_cases, 10) << "the 8-bit layers must saturate some outputs, or the clamp is untested";
    EXPECT_GT(relu_cases_with_negatives, 20) << "relu layers must have negative pre-activations to zero";
}

TEST(Int16Conv, LargerLayerWithManyBandsAndBlocksMatchesOnEveryPath) {
    std::mt19937 rng(7);
    ThreadPool pool(2);
    // 30x23 = 690 pixels (several bands, a short last one); 70 filters (short last block).
    const Int16ConvArgs a = conv_args({35, 30, 23}, 70, 3, 1, 1, true, 3, 12);
    const auto weights = test::random_int16(rng, a.weight_count(), -600, 600);
    const auto biases = test::random_int16(rng, 70, -2000, 2000);
    const auto input = test::random_int16(rng, a.input.size(), -9000, 9000);
    const auto expected = reference(a, weights, biases, input);
    for (Int16Isa isa : supported_int16_isas()) {
        EXPECT_EQ(packed(a, weights, biases, input, isa, &pool), expected) << isa_name(isa);
    }
}

TEST(Int16Conv, ManyChannelChunksMatchOnEveryPath) {
    // 300 channels = 150 pairs: three chunks of the step order (64 + 64 + 22 pairs), stride 2.
    std::mt19937 rng(8);
    const Int16ConvArgs a = conv_args({300, 9, 7}, 21, 3, 2, 1, true, 0, 20);
    const auto weights = test::random_int16(rng, a.weight_count());
    const auto biases = test::random_int16(rng, 21);
    const auto input = test::random_int16(rng, a.input.size());
    const auto expected = reference(a, weights, biases, input);
    for (Int16Isa isa : supported_int16_isas())
        EXPECT_EQ(packed(a, weights, biases, input, isa), expected) << isa_name(isa);
}

Int16ConvArgs eight_bit(Int16ConvArgs a) {
    a.input_bits = a.weight_bits = arith::kNarrowBits;
    return a;
}

TEST(Int16Conv, EightBitLayersMatchOnEveryPath) {
    // The u8 x s8 layout's edges: channel counts around the quads (padded channels), padding and
    // stride 2 (padding is the byte 128), several chunks of 64 quads (259 channels), short blocks,
    // and the AVX-512 packing's blocks of 16 channels x 16 pixels with both remainders (masked).
    std::mt19937 rng(16);
    ThreadPool pool(2);
    struct Shape {
        TensorShape input;
        int filters, size, stride, pad;
    };
    const Shape shapes[] = {
        {{1, 7, 6}, 5, 3, 1, 1},    {{2, 9, 9}, 33, 3, 2, 1},   {{3, 8, 11}, 32, 3, 2, 1},
        {{5, 6, 5}, 17, 1, 1, 0},   {{6, 10, 7}, 40, 3, 1, 1},  {{7, 13, 12}, 9, 3, 2, 1},
        {{9, 5, 5}, 64, 3, 1, 0},   {{13, 12, 9}, 31, 3, 2, 1}, {{259, 7, 6}, 35, 3, 2, 1},
        {{35, 5, 37}, 40, 3, 1, 1}, {{48, 3, 16}, 32, 1, 1, 0}, {{16, 4, 19}, 8, 3, 2, 1},
        {{32, 6, 13}, 16, 1, 1, 0}};  // unpadded rows of only a remainder: each ends where the next begins
    for (const Shape& shape : shapes) {
        for (const int output_bits : {arith::kNarrowBits, arith::kDataBits}) {
            Int16ConvArgs a = eight_bit(conv_args(shape.input, shape.filters, shape.size, shape.stride,
                                                  shape.pad, output_bits == arith::kNarrowBits, 9, 10));
            a.output_bits = output_bits;
            const auto weights = test::random_int16(rng, a.weight_count(), -128, 127);
            const auto biases = test::random_int16(rng, static_cast<std::size_t>(a.output.c));
            const auto input = test::random_int16(rng, a.input.size(), -128, 127);
            const auto expected = reference(a, weights, biases, input);
            for (Int16Isa isa : supported_int16_isas()) {
                EXPECT_EQ(packed(a, weights, biases, input, isa, &pool), expected)
                    << isa_name(isa) << " " << shape.input.c << " channels -> " << shape.filters << " K"
                    << shape.size << " S" << shape.stride << " output_bits " << output_bits;
            }
        }
    }
}

TEST(Int16Conv, StudyWidthsSaturateAtTheirBitsOnEveryPath) {
    // fpgacnn-quantize --explore's 6- and 4-bit layers (arith::is_study_width): b-bit inputs and
    // weights, and outputs that saturate at [-2^(b-1), 2^(b-1) - 1], not at the 8-bit storage's range.
    std::mt19937 rng(64);
    ThreadPool pool(2);
    for (const int bits : arith::kStudyWidths) {
        const int high = (1 << (bits - 1)) - 1;
        Int16ConvArgs a = conv_args({19, 9, 11}, 33, 3, 1, 1, true, 4, 5);
        a.input_bits = a.weight_bits = a.output_bits = bits;
        const auto weights = test::random_int16(rng, a.weight_count(), -high - 1, high);
        const auto biases = test::random_int16(rng, static_cast<std::size_t>(a.output.c), -2000, 2000);
        const auto input = test::random_int16(rng, a.input.size(), -high - 1, high);
        const auto expected = reference(a, weights, biases, input);
        Int16ConvArgs wide = a;
        wide.output_bits = arith::kDataBits;
        const auto wide_out = reference(wide, weights, biases, input);
        bool reached_high = false;
        bool reached_low = false;
        bool beyond_high = false;  // the 16-bit result would not fit: the clamp did something
        for (std::size_t i = 0; i < expected.size(); ++i) {
            ASSERT_EQ(expected[i], std::clamp<int>(wide_out[i], -high - 1, high)) << bits << " bits, " << i;
            reached_high = reached_high || expected[i] == high;
            reached_low = reached_low || expected[i] == -high - 1;
            beyond_high = beyond_high || wide_out[i] > arith::saturate_to_width(32767, arith::kNarrowBits);
        }
        EXPECT_TRUE(reached_high && reached_low && beyond_high) << bits << " bits: pick larger shifts";
        for (Int16Isa isa : supported_int16_isas()) {
            EXPECT_EQ(packed(a, weights, biases, input, isa, &pool), expected)
                << isa_name(isa) << " " << bits;
        }
    }
    // Weights beyond the study width are refused like 8-bit ones beyond [-128, 127].
    Int16ConvArgs a = conv_args({2, 4, 4}, 3, 1, 1, 0, false, 0, 0);
    a.weight_bits = arith::kStudyWidths[1];
    std::vector<int16_t> weights(a.weight_count(), 0);
    weights[1] = 8;  // 4 bits hold [-8, 7]
    const std::vector<int16_t> biases(3, 0);
    EXPECT_THROW(Int16PackedConv(a, weights.data(), biases.data(), Int16Isa::Scalar), Error);
}

TEST(Int16Conv, EightBitAccumulatorWrapsModulo2To32) {
    // 70000 channels of (-128) x (-128) = 16384 each, plus the largest bias 32767 << 15:
    // 1073709056 + 1146880000 = 2220589056 wraps to -2074378240; shift 20 gives -1978.29 -> -1978
    // (an int64 sum would give +2118). At 8 bits it clamps to -128.
    Int16ConvArgs a = eight_bit(conv_args({70000, 1, 2}, 33, 1, 1, 0, false, 15, 20));
    const std::vector<int16_t> w(a.weight_count(), -128), x(a.input.size(), -128), b(33, 32767);
    const std::vector<int16_t> wide(a.output.size(), -1978);
    EXPECT_EQ(reference(a, w, b, x), wide);
    for (Int16Isa isa : supported_int16_isas()) EXPECT_EQ(packed(a, w, b, x, isa), wide) << isa_name(isa);
    a.output_bits = arith::kNarrowBits;
    const std::vector<int16_t> narrow(a.output.size(), -128);
    EXPECT_EQ(reference(a, w, b, x), narrow);
    for (Int16Isa isa : supported_int16_isas()) EXPECT_EQ(packed(a, w, b, x, isa), narrow) << isa_name(isa);
}

TEST(Int16Conv, Avx512VnniRunsEightBitLayersOnBytes) {
    if (!int16_isa_supported(Int16Isa::Avx512Vnni)) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
    // 64 channels, 3x3, 64 filters: whole quads and whole blocks of 32, so the packed parameters are
    // exactly one byte per weight (two at 16 bits) plus the int32 biases.
    const Int16ConvArgs wide = conv_args({64, 6, 6}, 64, 3, 1, 1, true, 4, 10);
    const std::vector<int16_t> w(wide.weight_count(), 3), b(64, 1);
    const Int16PackedConv wide_conv(wide, w.data(), b.data(), Int16Isa::Avx512Vnni);
    EXPECT_EQ(wide_conv.packed_parameter_bytes(), 2 * wide.weight_count() + 4 * 64);
    const Int16PackedConv narrow_conv(eight_bit(wide), w.data(), b.data(), Int16Isa::Avx512Vnni);
    EXPECT_EQ(narrow_conv.packed_parameter_bytes(), wide.weight_count() + 4 * 64);
    EXPECT_EQ(narrow_conv.packed_input_size(), wide_conv.packed_input_size() / 2);
    // 8-bit inputs with 16-bit weights, or the reverse, stay on int16 pairs.
    for (const int input_bits : {arith::kNarrowBits, arith::kDataBits}) {
        Int16ConvArgs mixed = wide;
        mixed.input_bits = input_bits;
        mixed.weight_bits = input_bits == arith::kNarrowBits ? arith::kDataBits : arith::kNarrowBits;
        EXPECT_EQ(Int16PackedConv(mixed, w.data(), b.data(), Int16Isa::Avx512Vnni).packed_parameter_bytes(),
                  wide_conv.packed_parameter_bytes());
    }
}

TEST(Int16Conv, ReferenceOnHandComputedExamples) {
    // 1x1 conv, one channel, one filter: acc = w * x + bias * 2^bias_shift.
    struct Case {
        int16_t w, x, bias;
        int bias_shift, output_shift;
        bool leaky;
        int16_t expected;
        const char* what;
    };
    const Case cases[] = {
        {3, 5, 0, 0, 1, false, 8, "15 / 2 = 7.5 is a tie: rounds half up to 8"},
        {-3, 5, 0, 0, 1, false, -7, "-7.5 rounds half up to -7"},
        {3, 5, 1, 4, 1, false, 16, "bias 1 << 4 = 16, (15 + 16) / 2 = 15.5 -> 16"},
        {-10, 10, 0, 0, 0, true, -10, "leaky: -100 * 13107 / 2^17 = -9.9997 -> -10"},
        {-256, 256, 0, 0, 0, true, -6553, "leaky tie: -65536 * 13107 / 2^17 = -6553.5 -> -6553"},
        {32767, 32767, 0, 0, 0, false, 32767, "saturates high"},
        {-32768, 32767, 0, 0, 0, false, -32768, "saturates low"},
        {200, 3, 0, 0, -3, false, 4800, "negative shift: 600 * 8"},
    };
    for (const Case& c : cases) {
        const Int16ConvArgs a = conv_args({1, 1, 1}, 1, 1, 1, 0, c.leaky, c.bias_shift, c.output_shift);
        const auto out = reference(a, {c.w}, {c.bias}, {c.x});
        EXPECT_EQ(out[0], c.expected) << c.what;
        for (Int16Isa isa : supported_int16_isas()) {
            EXPECT_EQ(packed(a, {c.w}, {c.bias}, {c.x}, isa)[0], c.expected)
                << isa_name(isa) << ": " << c.what;
        }
    }
}

TEST(Int16Conv, AccumulatorWrapsModulo2To32) {
    // Two products of (-32768)^2 = 2^30 each sum to 2^31, which wraps to -2^31; shift 16 gives -32768.
    // A 1x1 conv over 2 channels: this is exactly vpmaddwd's one overflow case.
    const Int16ConvArgs a = conv_args({2, 1, 1}, 1, 1, 1, 0, false, 0, 16);
    const std::vector<int16_t> w = {-32768, -32768};
    const std::vector<int16_t> x = {-32768, -32768};
    EXPECT_EQ(reference(a, w, {0}, x)[0], -32768);
    for (Int16Isa isa : supported_int16_isas())
        EXPECT_EQ(packed(a, w, {0}, x, isa)[0], -32768) << isa_name(isa);
    // Four such products: 2^32 wraps to 0.
    const Int16ConvArgs b = conv_args({4, 1, 1}, 1, 1, 1, 0, false, 0, 0);
    const std::vector<int16_t> w4(4, -32768);
    EXPECT_EQ(reference(b, w4, {0}, w4)[0], 0);
    for (Int16Isa isa : supported_int16_isas()) EXPECT_EQ(packed(b, w4, {0}, w4, isa)[0], 0) << isa_name(isa);
}

TEST(Int16Conv, ThreeByThreeWithPaddingByHand) {
    // 1 channel 2x2 input, 3x3 all-ones kernel, pad 1: every output sums the whole input (each
    // window covers all four pixels), output shift 0.
    const Int16ConvArgs a = conv_args({1, 2, 2}, 1, 3, 1, 1, false, 0, 0);
    const std::vector<int16_t> w(9, 1);
    const std::vector<int16_t> x = {1, 2, 3, 4};
    const std::vector<int16_t> expected = {10, 10, 10, 10};
    EXPECT_EQ(reference(a, w, {0}, x), expected);
    for (Int16Isa isa : supported_int16_isas())
        EXPECT_EQ(packed(a, w, {0}, x, isa), expected) << isa_name(isa);
}

TEST(Int16Conv, RejectsOutOfContractShiftsAndShapes) {
    const std::vector<int16_t> w(9, 1), b(1, 0), x(4, 1);
    std::vector<int16_t> out(4);
    Int16ConvArgs a = conv_args({1, 2, 2}, 1, 3, 1, 1, false, 16, 0);
    EXPECT_THROW(int16_conv_reference(a, w.data(), b.data(), x.data(), out.data()), Error);
    a.bias_shift = 0;
    a.output_shift = 32;
    EXPECT_THROW(Int16PackedConv(a, w.data(), b.data(), Int16Isa::Scalar), Error);
    a.output_shift = 0;
    a.output.h = 3;
    EXPECT_THROW(Int16PackedConv(a, w.data(), b.data(), Int16Isa::Scalar), Error);
    a.output.h = 2;
    a.input_bits = 12;
    EXPECT_THROW(Int16PackedConv(a, w.data(), b.data(), Int16Isa::Scalar), Error);
    a.input_bits = arith::kNarrowBits;
    a.weight_bits = arith::kNarrowBits;
    const std::vector<int16_t> wide_weights(9, 128);  // one past the 8-bit range
    for (Int16Isa isa : supported_int16_isas())
        EXPECT_THROW(Int16PackedConv(a, wide_weights.data(), b.data(), isa), Error) << isa_name(isa);
}

}  // namespace
}  // namespace fpgacnn

namespace fpgacnn {
namespace {

TEST(Int16Isa, EverySupportedPathPassesItsSelfTestAndTheBestOneIsSupported) {
    std::string tested;
    for (Int16Isa isa : supported_int16_isas()) {
        EXPECT_TRUE(int16_isa_self_test(isa)) << isa_name(isa);
        tested += std::string(tested.empty() ? "" : ", ") + isa_name(isa);
    }
    // Which paths this run compared with the reference (scripts/cross-test.sh checks the ARM
    // runs name neon here: qemu must have exercised the NEON code, not just compiled it).
    std::cout << "int16 paths tested: " << tested << "; best: " << isa_name(best_int16_isa()) << "\n";
    EXPECT_TRUE(int16_isa_supported(best_int16_isa()));
    EXPECT_EQ(supported_int16_isas().front(), Int16Isa::Scalar);
#if defined(__x86_64__)
    // This machine's best path: AVX2 whenever the CPU has it and lacks AVX-512 VNNI.
    if (int16_isa_supported(Int16Isa::Avx2) && !int16_isa_supported(Int16Isa::Avx512Vnni)) {
        EXPECT_EQ(best_int16_isa(), Int16Isa::Avx2);
    }
#elif defined(__aarch64__)
    EXPECT_EQ(best_int16_isa(), Int16Isa::Neon);  // NEON is AArch64 baseline
#endif
}

TEST(Int16Isa, UnsupportedPathsAreRefused) {
    for (Int16Isa isa : {Int16Isa::Avx2, Int16Isa::Avx512Vnni, Int16Isa::Neon}) {
        if (int16_isa_supported(isa)) continue;
        EXPECT_FALSE(int16_isa_self_test(isa));
        const std::vector<int16_t> w(1, 1), b(1, 0);
        Int16ConvArgs a;
        a.input = {1, 1, 1};
        a.output = {1, 1, 1};
        EXPECT_THROW(Int16PackedConv(a, w.data(), b.data(), isa), Error) << isa_name(isa);
    }
}

}  // namespace
}  // namespace fpgacnn

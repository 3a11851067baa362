// The 8-bit storage width of the arithmetic contract (docs/arithmetic.md, "Per-layer widths"): an
// 8-bit output is the 16-bit contract's single rounding, clamped to [-128, 127]; 16 bits is exactly
// the int16 contract.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn::arith {
namespace {

TEST(NarrowWidth, OnlySixteenAndEightAreStorageWidths) {
    EXPECT_TRUE(is_storage_width(kDataBits));
    EXPECT_TRUE(is_storage_width(kNarrowBits));
    for (int bits : {0, 4, 6, 7, 9, 12, 32}) EXPECT_FALSE(is_storage_width(bits)) << bits;
}

TEST(NarrowWidth, SaturationClampsToTheWidth) {
    EXPECT_EQ(saturate_to_width(127, kNarrowBits), 127);
    EXPECT_EQ(saturate_to_width(128, kNarrowBits), 127);
    EXPECT_EQ(saturate_to_width(-128, kNarrowBits), -128);
    EXPECT_EQ(saturate_to_width(-129, kNarrowBits), -128);
    EXPECT_EQ(saturate_to_width(int64_t{1} << 40, kNarrowBits), 127);
    EXPECT_EQ(saturate_to_width(200, kDataBits), 200);
    EXPECT_EQ(saturate_to_width(40000, kDataBits), 32767);
}

// Hand-computed rows: the same ties and leaky folding as the int16 table, with the 8-bit clamp.
TEST(NarrowWidth, RequantizeRoundsOnceThenClampsToEightBits) {
    EXPECT_EQ(requantize_to_width(24, 4, false, kNarrowBits), 2);     // 1.5 rounds up
    EXPECT_EQ(requantize_to_width(-24, 4, false, kNarrowBits), -1);   // -1.5 rounds up to -1
    EXPECT_EQ(requantize_to_width(-11, 1, true, kNarrowBits), -1);    // leaky inside the one rounding
    EXPECT_EQ(requantize_to_width(255, 1, false, kNarrowBits), 127);  // 127.5 -> 128 saturates
    EXPECT_EQ(requantize_to_width(253, 1, false, kNarrowBits), 127);  // 126.5 -> 127 fits exactly
    EXPECT_EQ(requantize_to_width(-257, 1, false, kNarrowBits), -128);
    EXPECT_EQ(requantize_to_width(-2560, 0, true, kNarrowBits), -128);  // -255.996 clamps
}

TEST(NarrowWidth, EveryWidthIsTheInt16ResultClamped) {
    std::mt19937_64 random(7);
    std::uniform_int_distribution<int32_t> acc(INT32_MIN, INT32_MAX);
    std::uniform_int_distribution<int> shift(kExactMinOutputShift, kExactMaxOutputShift);
    for (int i = 0; i < 100000; ++i) {
        const int32_t a = acc(random) >> (i % 24);  // small and large accumulators
        const int s = shift(random);
        for (uint32_t leaky = 0; leaky < kActivationCodes; ++leaky) {
            const int16_t wide = requantize(a, s, leaky);
            ASSERT_EQ(requantize_to_width(a, s, leaky, kDataBits), wide) << a << " " << s;
            ASSERT_EQ(requantize_to_width(a, s, leaky, kNarrowBits), saturate_to_width(wide, kNarrowBits))
                << a << " " << s << " " << leaky;
        }
    }
}

TEST(NarrowWidth, QuantizeToEightBitsRoundsThenClamps) {
    EXPECT_EQ(quantize_to_width(0.5f, 7, kNarrowBits), 64);
    EXPECT_EQ(quantize_to_width(0.99f, 7, kNarrowBits), 127);   // 126.72 -> 127
    EXPECT_EQ(quantize_to_width(1.0f, 7, kNarrowBits), 127);    // 128 saturates
    EXPECT_EQ(quantize_to_width(-1.0f, 7, kNarrowBits), -128);  // exactly representable
    EXPECT_EQ(quantize_to_width(-2.0f, 7, kNarrowBits), -128);
    EXPECT_EQ(quantize_to_width(1.0f, 7, kDataBits), quantize(1.0f, 7));
}

}  // namespace
}  // namespace fpgacnn::arith

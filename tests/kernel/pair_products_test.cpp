// The pair mode's arithmetic (contract.hpp kPairShift, arithmetic.hpp pair_products): one product of
// the packed operand x1 * 2^16 + x0 with w gives x0 * w and x1 * w exactly, for every 8-bit x0, x1, w.
#include <gtest/gtest.h>

#include <cstdint>

#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn::test {
namespace {

TEST(PairProducts, EveryEightBitTripleSplitsIntoItsTwoProducts) {
    long long wrong = 0;
    for (int w = -128; w <= 127; ++w) {
        for (int x1 = -128; x1 <= 127; ++x1) {
            for (int x0 = -128; x0 <= 127; ++x0) {
                int32_t p0 = 0, p1 = 0;
                arith::pair_products(static_cast<int16_t>(x0), static_cast<int16_t>(x1),
                                     static_cast<int16_t>(w), p0, p1);
                if (p0 != x0 * w || p1 != x1 * w) ++wrong;
            }
        }
    }
    EXPECT_EQ(wrong, 0) << "of 2^24 (x0, x1, w) triples";
}

// The field a product needs: |x0 * w| <= 2^14 must fit a signed kPairShift-bit field, and the packed
// operand kPairOperandBits must fit the pre-adder of both DSP generations (25 and 27 bits).
TEST(PairProducts, FieldsFitTheDspPorts) {
    EXPECT_LT(128 * 128, 1 << (arith::kPairShift - 1));
    EXPECT_LE(arith::kPairOperandBits, 25);
    EXPECT_EQ(arith::kPairOperandBits, arith::kNarrowBits + arith::kPairShift);
}

TEST(PairProducts, MacPairWrapsLikeTwoMacs) {
    int32_t a0 = INT32_MAX, a1 = INT32_MIN;
    int32_t b0 = a0, b1 = a1;
    arith::mac_pair(a0, a1, -128, 127, -128);
    b0 = arith::mac(b0, -128, 127);
    b1 = arith::mac(b1, -128, -128);
    EXPECT_EQ(a0, b0);
    EXPECT_EQ(a1, b1);
}

}  // namespace
}  // namespace fpgacnn::test

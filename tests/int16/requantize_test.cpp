// The vectorised conv epilogue of every ISA path against arith::requantize, on the values where
// a mistake would show: ties, their neighbours, saturation boundaries, leaky ties, int32 extremes,
// every shift of the contract's range; plus hand-computed examples of the contract itself.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {
namespace {

constexpr int64_t kInt32Min = std::numeric_limits<int32_t>::min();
constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

void add(std::set<int64_t>& values, int64_t v) {
    if (v >= kInt32Min && v <= kInt32Max) values.insert(v);
}

std::vector<int32_t> edge_values(int shift) {
    std::set<int64_t> values;
    for (int64_t v :
         {kInt32Min, kInt32Min + 1, kInt32Max - 1, kInt32Max, int64_t{0}, int64_t{1}, int64_t{-1}}) {
        add(values, v);
    }
    // Linear ties and saturation boundaries: k * 2^s + d around the rounding midpoint.
    const int64_t unit = shift >= 0 ? (int64_t{1} << shift) : 1;
    const int64_t half = shift > 0 ? unit / 2 : 0;
    for (int64_t k : {-65537LL, -32769LL, -32768LL, -32767LL, -2LL, -1LL, 0LL, 1LL, 2LL, 32766LL, 32767LL,
                      32768LL, 65536LL}) {
        for (int64_t d :
             {-half - 1, -half, -half + 1, int64_t{-1}, int64_t{0}, int64_t{1}, half - 1, half, half + 1}) {
            add(values, k * unit + d);
        }
    }
    // Negative shifts: the first values whose scaled result saturates.
    if (shift < 0) {
        const int64_t limit = 32767 >> -shift;
        for (int64_t d = -2; d <= 2; ++d) {
            add(values, limit + d);
            add(values, -limit - 1 + d);
        }
    }
    // Leaky ties: 13107 is odd, so acc * 13107 / 2^t is exactly .5 when acc = odd * 2^(t-1).
    const int t = arith::kLeakyShift + shift;
    for (int64_t odd : {1LL, 3LL, 5LL, 13107LL, 32767LL, 65535LL, 262143LL}) {
        if (t - 1 >= 32) break;
        const int64_t tie = -odd * (int64_t{1} << (t - 1));
        for (int64_t d = -1; d <= 1; ++d) add(values, tie + d);
    }
    // Leaky saturation boundary: acc * 13107 / 2^t around -32768.
    for (long double level : {-32768.0L, -32767.5L, -32767.0L}) {
        const long double boundary = level * static_cast<long double>(int64_t{1} << t) / 13107.0L;
        for (int64_t d = -3; d <= 3; ++d) add(values, static_cast<int64_t>(boundary) + d);
    }
    std::vector<int32_t> result;
    for (int64_t v : values) result.push_back(static_cast<int32_t>(v));
    return result;
}

TEST(Int16Requantize, EveryPathMatchesTheContractOnEdgeValuesAndRandomValuesForEveryShift) {
    std::mt19937 rng(1234);
    std::uniform_int_distribution<int32_t> any(std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max());
    for (Int16Isa isa : supported_int16_isas()) {
        for (int shift = arith::kModelMinOutputShift; shift <= arith::kModelMaxOutputShift; ++shift) {
            std::vector<int32_t> acc = edge_values(shift);
            // Random values, and random values near the output range (where most real data is).
            std::uniform_int_distribution<int32_t> near(-40000 * (shift > 0 ? 1 << std::min(shift, 15) : 1),
                                                        40000 * (shift > 0 ? 1 << std::min(shift, 15) : 1));
            for (int i = 0; i < 500; ++i) acc.push_back(any(rng));
            for (int i = 0; i < 500; ++i) acc.push_back(near(rng));
            acc.push_back(0);  // an odd length exercises the tails
            for (uint32_t activation = 0; activation < arith::kActivationCodes; ++activation) {
                std::vector<int16_t> out(acc.size());
                int16_requantize_activation(acc.data(), out.data(), acc.size(), shift, activation, isa);
                for (std::size_t i = 0; i < acc.size(); ++i) {
                    ASSERT_EQ(out[i], arith::requantize(acc[i], shift, activation))
                        << isa_name(isa) << " acc " << acc[i] << " shift " << shift << " activation "
                        << activation;
                }
                // Every length from 0 to 40 (tails of each vector width), from an odd offset.
                for (std::size_t n = 0; n <= 40 && n + 3 <= acc.size(); ++n) {
                    std::vector<int16_t> part(n + 1, 77);
                    int16_requantize_activation(acc.data() + 3, part.data(), n, shift, activation, isa);
                    for (std::size_t i = 0; i < n; ++i) {
                        ASSERT_EQ(part[i], arith::requantize(acc[3 + i], shift, activation)) << isa_name(isa);
                    }
                    ASSERT_EQ(part[n], 77) << isa_name(isa) << ": wrote past the end, n = " << n;
                }
            }
        }
    }
}

TEST(Int16Requantize, HandComputedExamples) {
    for (Int16Isa isa : supported_int16_isas()) {
        struct Case {
            int32_t acc;
            int shift;
            bool leaky;
            int16_t expected;
        };
        const Case cases[] = {
            {15, 1, false, 8},         // 7.5 rounds up
            {-15, 1, false, -7},       // -7.5 rounds up too (half up, not away from zero)
            {5, 1, false, 3},          // 2.5 -> 3
            {-5, 1, false, -2},        // -2.5 -> -2
            {-16, 2, false, -4},       // exact
            {-100, 0, true, -10},      // -100 * 13107 / 2^17 = -9.9997 -> -10
            {-65536, 0, true, -6553},  // -6553.5 exactly: a leaky tie rounds up
            {100, 0, true, 100},       // leaky leaves positives alone
            {40000, 0, false, 32767},  // saturation
            {-40000, 0, false, -32768},
            {100, -2, false, 400},      // negative shift multiplies
            {10000, -2, false, 32767},  // ... and saturates
            {-10000, -2, true, -4000},  // -10000 * 4 * 0.1 = -4000 (leaky: -40000 * 13107 / 2^17 = -3999.9)
            {std::numeric_limits<int32_t>::min(), 31, false, -1},
            {std::numeric_limits<int32_t>::max(), 31, false, 1},
            {std::numeric_limits<int32_t>::min(), 31, true, 0},  // -2^31 * 13107 / 2^48 = -0.1 -> 0
        };
        for (const Case& c : cases) {
            int16_t out = 0;
            int16_requantize(&c.acc, &out, 1, c.shift, c.leaky, isa);
            EXPECT_EQ(out, c.expected) << isa_name(isa) << " acc " << c.acc << " shift " << c.shift;
            EXPECT_EQ(arith::requantize(c.acc, c.shift, c.leaky), c.expected);
        }
    }
}

// relu is leaky with slope 0: negatives give 0 at every shift, the rest is linear's rounding.
TEST(Int16Requantize, ReluByHandOnEveryPath) {
    struct Case {
        int32_t acc;
        int shift;
        int16_t expected;
    };
    const Case cases[] = {
        {-1, 0, 0},
        {-100, 0, 0},
        {-15, 1, 0},   // linear would give -7
        {-1, -15, 0},  // linear would give -32768
        {std::numeric_limits<int32_t>::min(), 31, 0},
        {0, 5, 0},
        {15, 1, 8},  // positives: linear's round half up
        {5, 1, 3},
        {40000, 0, 32767},  // and its saturation
        {100, -2, 400},
        {std::numeric_limits<int32_t>::max(), 31, 1},
    };
    for (Int16Isa isa : supported_int16_isas()) {
        for (const Case& c : cases) {
            int16_t out = 77;
            int16_requantize_activation(&c.acc, &out, 1, c.shift, arith::kActivationRelu, isa);
            EXPECT_EQ(out, c.expected) << isa_name(isa) << " acc " << c.acc << " shift " << c.shift;
        }
    }
    for (const Case& c : cases) {
        EXPECT_EQ(arith::requantize(c.acc, c.shift, arith::kActivationRelu), c.expected);
        EXPECT_EQ(arith::requantize_to_width(c.acc, c.shift, arith::kActivationRelu, arith::kNarrowBits),
                  arith::saturate_to_width(c.expected, arith::kNarrowBits));
    }
    // An unknown code is refused, not run as linear.
    const int32_t acc = -5;
    int16_t out = 0;
    EXPECT_THROW(int16_requantize_activation(&acc, &out, 1, 0, arith::kActivationCodes, Int16Isa::Scalar),
                 Error);
}

TEST(StudyWidths, AreNoStorageWidthsAndSaturateAtTheirOwnBits) {
    for (const int bits : arith::kStudyWidths) {
        EXPECT_TRUE(arith::is_study_width(bits));
        EXPECT_FALSE(arith::is_storage_width(bits));  // never in a model file or on a device
    }
    for (const int bits : {arith::kDataBits, arith::kNarrowBits, 5, 7})
        EXPECT_FALSE(arith::is_study_width(bits));
    EXPECT_EQ(arith::saturate_to_width(31, 6), 31);
    EXPECT_EQ(arith::saturate_to_width(32, 6), 31);
    EXPECT_EQ(arith::saturate_to_width(-32, 6), -32);
    EXPECT_EQ(arith::saturate_to_width(-33, 6), -32);
    EXPECT_EQ(arith::saturate_to_width(100, 4), 7);
    EXPECT_EQ(arith::saturate_to_width(-100, 4), -8);
    EXPECT_EQ(arith::saturate_to_width(int64_t{1} << 40, 4), 7);
    EXPECT_EQ(arith::requantize_to_width(255, 1, false, 6), 31);   // 127.5 -> 128, clamped at 6 bits
    EXPECT_EQ(arith::requantize_to_width(-2560, 0, true, 4), -8);  // leaky -255.996 -> -256 -> -8
    EXPECT_EQ(arith::quantize_to_width(1.0f, 4, 6), 16);           // fits
    EXPECT_EQ(arith::quantize_to_width(1.0f, 5, 6), 31);           // 32 saturates
}

TEST(Int16Requantize, RejectsShiftsOutsideTheContract) {
    int32_t acc = 0;
    int16_t out = 0;
    EXPECT_THROW(int16_requantize(&acc, &out, 1, arith::kModelMaxOutputShift + 1, false, Int16Isa::Scalar),
                 std::exception);
    EXPECT_THROW(int16_requantize(&acc, &out, 1, arith::kModelMinOutputShift - 1, false, Int16Isa::Scalar),
                 std::exception);
}

}  // namespace
}  // namespace fpgacnn

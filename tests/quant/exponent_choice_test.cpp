// The per-tensor exponent rules: least squared error with saturation for parameters, a saturation
// percentile for activations.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {
namespace {

int best(const std::vector<float>& values) {
    return best_exponent(values.data(), values.size(), arith::kMinExponent, arith::kMaxExponent).q;
}

double naive_squared_error(const std::vector<float>& values, int q) {
    double sum = 0;
    for (float v : values) {
        const double e = static_cast<double>(v) - arith::dequantize(arith::quantize(v, q), q);
        sum += e * e;
    }
    return sum;
}

TEST(BestExponent, PicksTheFinestExponentThatHoldsTheLargestWeight) {
    EXPECT_EQ(best({0.9f, -0.5f, 0.1f, 0.01f}), 15);  // 0.9 * 2^15 = 29491 fits; 2^16 would not
    EXPECT_EQ(best({3.0f, -1.2f, 0.7f, 0.05f}), 13);  // 3 * 2^13 = 24576; at 14 it saturates
    EXPECT_EQ(best({-3.0f, 1.2f, 0.7f}), 13);         // the sign does not matter
    EXPECT_EQ(best({0.001f, -0.0007f}), 24);          // tiny values: the contract's finest exponent
    EXPECT_EQ(best({300.0f, 2.0f}), 6);               // 300 * 2^6 = 19200
}

TEST(BestExponent, CountsSaturationAsError) {
    // 0.99 needs q <= 15; at 16 it would saturate to 0.49998 (error 0.49) while all other values only
    // gain rounding precision (at most 2^-17 each): one outlier must win over many small values.
    std::vector<float> values(1000, 0.001f);
    values.push_back(0.99f);
    EXPECT_EQ(best(values), 15);
}

TEST(BestExponent, LetsAnOutlierSaturateWhenThatLowersTheTotalError) {
    // 1.00001 only fits at q <= 14, but saturating it at 15 costs (1.00001 - 32767/32768)^2 = 1.6e-9
    // while the finer step halves the rounding error of 2000 values in [0.25, 0.5): about
    // 2000 * (2^-28 - 2^-30) / 12 = 4.7e-7 less. The least-squares rule takes 15.
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> uniform(0.25f, 0.5f);
    std::vector<float> values(2000);
    for (float& v : values) v = uniform(rng);
    values.push_back(1.00001f);
    const ExponentChoice choice =
        best_exponent(values.data(), values.size(), arith::kMinExponent, arith::kMaxExponent);
    EXPECT_EQ(choice.q, 15);
    EXPECT_EQ(arith::quantize(values.back(), 15), 32767);  // the outlier does saturate
    EXPECT_LT(choice.squared_error, naive_squared_error(values, 14));
    EXPECT_NEAR(choice.squared_error, naive_squared_error(values, 15), 1e-15);
}

TEST(BestExponent, ErrorMatchesTheContractsQuantizeOnRandomData) {
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.2f);
    std::vector<float> values(5000);
    for (float& v : values) v = normal(rng);
    const ExponentChoice choice =
        best_exponent(values.data(), values.size(), arith::kMinExponent, arith::kMaxExponent);
    for (int q = arith::kMinExponent; q <= arith::kMaxExponent; ++q) {
        const double error = naive_squared_error(values, q);
        EXPECT_LE(choice.squared_error, error * (1 + 1e-12)) << "q = " << q;
        if (q == choice.q) {
            EXPECT_NEAR(choice.squared_error, error, 1e-12 * error + 1e-300);
        }
    }
}

TEST(BestExponent, StaysInsideTheGivenRangeAndRejectsAnEmptyOne) {
    EXPECT_EQ(best_exponent(std::vector<float>{0.9f}.data(), 1, 3, 9).q, 9);
    EXPECT_EQ(best_exponent(std::vector<float>{100.0f}.data(), 1, 10, 12).q, 10);
    const std::vector<float> zeros(4, 0.0f);
    EXPECT_EQ(best_exponent(zeros.data(), zeros.size(), -2, 5).q, 5);  // ties: the finest
    EXPECT_THROW(best_exponent(zeros.data(), zeros.size(), 5, 4), Error);
}

TEST(ActivationExponent, AtPercentile100NoValueSaturates) {
    const std::vector<float> values = {0.5f, -7.9f, 3.0f, 0.0f};
    const int q = activation_exponent(values.data(), values.size(), 100.0);
    EXPECT_EQ(q, 12);  // 7.9 * 2^12 = 32358 fits, at 13 it would not
    for (float v : values) {
        EXPECT_GT(arith::quantize(v, q), -32768);
        EXPECT_LT(arith::quantize(v, q), 32767);
    }
}

TEST(ActivationExponent, BoundaryOfRoundingUpTo32768) {
    // 32767.49 / 2^15 rounds to 32767: fits at 15. 32767.5 / 2^15 rounds to 32768: saturates.
    const float fits = static_cast<float>(32767.49 / 32768.0);
    const float saturates = static_cast<float>(32767.5 / 32768.0);
    EXPECT_EQ(activation_exponent(&fits, 1, 100.0), 15);
    EXPECT_EQ(activation_exponent(&saturates, 1, 100.0), 14);
}

TEST(ActivationExponent, APercentileIgnoresRareOutliers) {
    std::vector<float> values(100000, 1.5f);  // 1.5 fits at 14
    values[17] = 100.0f;                      // 100 needs 8
    EXPECT_EQ(activation_exponent(values.data(), values.size(), 100.0), 8);
    EXPECT_EQ(activation_exponent(values.data(), values.size(), 99.99), 14);  // 1 in 10^5 may saturate
    values[18] = values[19] = values[20] = values[21] = values[22] = values[23] = values[24] = values[25] =
        values[26] = values[27] = 100.0f;  // now 11 in 10^5: more than 99.99 % tolerates
    EXPECT_EQ(activation_exponent(values.data(), values.size(), 99.99), 8);
}

TEST(ActivationExponent, ClampsToTheContractsRange) {
    const float huge = 1e9f;
    const float tiny = 1e-9f;
    const float zero = 0.0f;
    EXPECT_EQ(activation_exponent(&huge, 1, 100.0), arith::kMinExponent);
    EXPECT_EQ(activation_exponent(&tiny, 1, 100.0), arith::kMaxExponent);
    EXPECT_EQ(activation_exponent(&zero, 1, 100.0), arith::kMaxExponent);
    EXPECT_THROW(activation_exponent(&zero, 1, 0.0), Error);
    EXPECT_THROW(activation_exponent(&zero, 1, 100.5), Error);
}

TEST(TensorConversion, MatchesTheScalarContract) {
    const std::vector<float> values = {0.0f, 0.5f, -0.25f, 1.9999f, 2.5f, -3.0f, 1e-6f};
    std::vector<int16_t> q(values.size());
    quantize_tensor(values.data(), values.size(), 14, q.data());
    std::vector<float> back(values.size());
    dequantize_tensor(q.data(), q.size(), 14, back.data());
    for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(q[i], arith::quantize(values[i], 14));
        EXPECT_EQ(back[i], arith::dequantize(q[i], 14));
    }
    EXPECT_EQ(q[4], 32767);   // 2.5 saturates at 14
    EXPECT_EQ(q[5], -32768);  // -3 too
}

// The array conversion (AVX-512 where the CPU has it) against the contract's scalar one on the values
// where rounding and clamping differ: ties, both bounds, infinities, NaN, tiny and huge values, at
// counts that leave every tail length.
TEST(TensorConversion, EveryValueEqualsTheContractAtEveryWidthAndLength) {
    std::vector<float> values = {0.0f,
                                 -0.0f,
                                 0.5f,
                                 -0.5f,
                                 1.5f,
                                 -1.5f,
                                 2.5f,
                                 -2.5f,
                                 std::numeric_limits<float>::quiet_NaN(),
                                 std::numeric_limits<float>::infinity(),
                                 -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::denorm_min(),
                                 -std::numeric_limits<float>::max(),
                                 std::numeric_limits<float>::max(),
                                 1e-30f};
    std::mt19937 rng(33);
    std::uniform_real_distribution<float> wide(-3.0f, 3.0f);
    for (int i = 0; i < 300; ++i) values.push_back(wide(rng));
    for (int k = -300; k <= 300; ++k)
        values.push_back((static_cast<float>(k) + 0.5f) / 1024.0f);  // ties at q 10
    for (const float edge : {32767.0f, 32767.5f, 32766.5f, -32768.0f, -32768.5f, -32767.5f, 127.5f, -128.5f})
        values.push_back(edge / 1024.0f);
    for (const int bits : {16, 8, 6}) {
        for (const int q : {0, 10, 14}) {
            for (std::size_t count = values.size() - 9; count <= values.size(); ++count) {
                std::vector<int16_t> got(count);
                quantize_tensor(values.data(), count, q, got.data(), bits);
                for (std::size_t i = 0; i < count; ++i) {
                    ASSERT_EQ(got[i], arith::quantize_to_width(values[i], q, bits))
                        << "value " << values[i] << " q " << q << " bits " << bits << " at " << i << " of "
                        << count;
                }
            }
        }
    }
}

}  // namespace
}  // namespace fpgacnn

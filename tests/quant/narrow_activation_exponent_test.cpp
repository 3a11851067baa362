// The exponent of a narrow (8-bit) output: least squared error, saturation included, estimated from
// the histogram's octave sums; and calibrate() uses it for 8-bit outputs instead of max |x| minus a
// margin.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "quant/activation_histogram.hpp"

namespace fpgacnn {
namespace {

double contract_squared_error(const std::vector<float>& values, int q, int bits) {
    double sum = 0;
    for (float v : values) {
        const double e = static_cast<double>(v) - arith::dequantize(arith::quantize_to_width(v, q, bits), q);
        sum += e * e;
    }
    return sum;
}

ActivationHistogram histogram_of(const std::vector<float>& values) {
    ActivationHistogram histogram;
    histogram.add(values.data(), values.size());
    return histogram;
}

std::vector<float> leaky_like_activations(std::size_t count, unsigned seed) {
    // Mostly small positives with a long tail, and small negatives (leaky's 0.1 x): like a conv output.
    std::mt19937 generator(seed);
    std::exponential_distribution<float> magnitude(2.0f);
    std::bernoulli_distribution negative(0.4);
    std::vector<float> values(count);
    for (float& v : values) v = negative(generator) ? -0.1f * magnitude(generator) : magnitude(generator);
    return values;
}

TEST(NarrowActivationExponent, EstimateFollowsTheContractsQuantizeAt8Bits) {
    const std::vector<float> values = leaky_like_activations(20000, 7);
    const ActivationHistogram histogram = histogram_of(values);
    for (int q = 0; q <= 12; ++q) {
        const double exact = contract_squared_error(values, q, 8);
        // Values that round to zero, to one step or saturate are exact; the rest is step^2 / 12 each,
        // which rounding noise averages to over thousands of values.
        EXPECT_NEAR(histogram.squared_error(q, 8), exact, 0.1 * exact) << "q = " << q;
    }
}

TEST(NarrowActivationExponent, PicksTheExponentOfLeastContractError) {
    const std::vector<float> values = leaky_like_activations(20000, 11);
    const int chosen = histogram_of(values).least_squares_exponent(8);
    const double at_chosen = contract_squared_error(values, chosen, 8);
    EXPECT_LT(at_chosen, contract_squared_error(values, chosen - 1, 8));
    EXPECT_LT(at_chosen, contract_squared_error(values, chosen + 1, 8));
}

TEST(NarrowActivationExponent, LetsARareOutlierSaturateWhereTheMaximumWouldNot) {
    std::vector<float> values(100000);
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 100) / 100.0f;
    values[17] = 100.0f;
    const ActivationHistogram histogram = histogram_of(values);
    // Holding 100 in 8 bits needs q = 0 (max |x| minus the 8 bits), where the other values keep at most
    // 1 of their 7 bits; saturating the one outlier costs less than that rounding of 10^5 values.
    const int holds_the_maximum = histogram.exponent(100.0) - (arith::kDataBits - 8);
    EXPECT_EQ(holds_the_maximum, 0);
    const int chosen = histogram.least_squares_exponent(8);
    EXPECT_GT(chosen, holds_the_maximum);
    EXPECT_LT(contract_squared_error(values, chosen, 8),
              0.5 * contract_squared_error(values, holds_the_maximum, 8));
}

TEST(NarrowActivationExponent, AllZeroOrTinyValuesTakeTheCoarsestErrorFreeChoiceWithinRange) {
    const std::vector<float> zeros(100, 0.0f);
    EXPECT_EQ(histogram_of(zeros).squared_error(3, 8), 0.0);
    // 1e-9 rounds to 0 at every allowed exponent: the error is the same everywhere, ties go coarse.
    const std::vector<float> tiny(100, 1e-9f);
    EXPECT_EQ(histogram_of(tiny).least_squares_exponent(8), arith::kMinExponent);
    EXPECT_NEAR(histogram_of(tiny).squared_error(arith::kMaxExponent, 8), 100 * 1e-18, 1e-21);
}

TEST(NarrowActivationExponent, MergedHistogramsEstimateAsOne) {
    const std::vector<float> a = leaky_like_activations(5000, 1);
    const std::vector<float> b = leaky_like_activations(5000, 2);
    ActivationHistogram merged = histogram_of(a);
    merged.merge(histogram_of(b));
    std::vector<float> both = a;
    both.insert(both.end(), b.begin(), b.end());
    for (int q = 2; q <= 6; ++q) {
        EXPECT_NEAR(merged.squared_error(q, 8), histogram_of(both).squared_error(q, 8),
                    1e-9 * histogram_of(both).squared_error(q, 8));
    }
}

}  // namespace
}  // namespace fpgacnn

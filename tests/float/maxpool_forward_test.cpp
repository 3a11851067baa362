#include <gtest/gtest.h>

#include <ostream>

#include "fpgacnn/float_ops.hpp"
#include "naive_ops.hpp"

namespace fpgacnn::test {
namespace {

struct PoolCase {
    TensorShape input;
    int size, stride;
    TensorShape expected_output;
};

void PrintTo(const PoolCase& p, std::ostream* os) {
    *os << p.input.c << "x" << p.input.h << "x" << p.input.w << " size=" << p.size << " stride=" << p.stride;
}

class MaxPoolForwardTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(MaxPoolForwardTest, MatchesDirectMaxPool) {
    const PoolCase& p = GetParam();
    const Layer layer = make_maxpool_layer(0, p.input, p.size, p.stride);
    ASSERT_EQ(layer.output, p.expected_output);
    // Negative inputs: an implementation that pads with zeros instead of skipping taps fails.
    const std::vector<float> input = random_values(p.input.size(), 5, -2.0f, -0.1f);
    std::vector<float> output(layer.output.size());

    maxpool_forward(layer, input.data(), output.data());

    EXPECT_EQ(output, naive_maxpool(layer, input));
}

INSTANTIATE_TEST_SUITE_P(
    SizeStride, MaxPoolForwardTest,
    ::testing::Values(PoolCase{{3, 8, 8}, 2, 2, {3, 4, 4}},      // even: no edge windows
                      PoolCase{{3, 7, 9}, 2, 2, {3, 4, 5}},      // odd: last window hangs over the edge
                      PoolCase{{2, 13, 13}, 2, 1, {2, 13, 13}},  // yolov2-tiny's size-2 stride-1 pool
                      PoolCase{{2, 6, 5}, 3, 2, {2, 3, 3}},      // padding/2 = 1 on the left/top
                      PoolCase{{1, 1, 1}, 2, 2, {1, 1, 1}},
                      PoolCase{{32, 129, 127}, 2, 2, {32, 65, 64}}));  // big enough to use threads

TEST(MaxPoolForward, EdgeWindowIgnoresOutOfImageTaps) {
    // 1x3 image, size 2 stride 1: the last window covers only the last pixel.
    const Layer layer = make_maxpool_layer(0, {1, 1, 3}, 2, 1);
    const std::vector<float> input = {-5.0f, -4.0f, -3.0f};
    std::vector<float> output(layer.output.size());
    maxpool_forward(layer, input.data(), output.data());
    EXPECT_EQ(output, (std::vector<float>{-4.0f, -3.0f, -3.0f}));
}

}  // namespace
}  // namespace fpgacnn::test

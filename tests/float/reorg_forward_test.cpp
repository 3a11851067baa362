#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn::test {
namespace {

Layer make_reorg_layer(TensorShape input, int stride) {
    Layer layer;
    layer.type = LayerType::Reorg;
    layer.input = input;
    layer.output = {input.c * stride * stride, input.h / stride, input.w / stride};
    layer.params = ReorgParams{stride};
    return layer;
}

// Input holds its own indexes, so output[i] says which input element landed at i.
std::vector<float> reorg_of_iota(const Layer& layer) {
    std::vector<float> input(layer.input.size());
    std::iota(input.begin(), input.end(), 0.0f);
    std::vector<float> output(layer.output.size(), -1.0f);
    reorg_forward(layer, input.data(), output.data());
    return output;
}

TEST(ReorgForward, HandComputedIndexes) {
    // Input w=4, h=4, c=8, stride 2 (out_c = 2 in darknet's formula).
    const std::vector<float> output = reorg_of_iota(make_reorg_layer({8, 4, 4}, 2));
    EXPECT_EQ(output[0], 0.0f);      // k=0 j=0 i=0 -> itself
    EXPECT_EQ(output[1], 2.0f);      // k=0 i=1: w2 = 2
    EXPECT_EQ(output[16], 64.0f);    // k=1: c2=1 -> 8*8*1
    EXPECT_EQ(output[32], 1.0f);     // k=2: offset=1 -> w2 = 1
    EXPECT_EQ(output[87], 94.0f);    // k=5 j=1 i=3: c2=1 offset=2 w2=6 h2=3 -> 6 + 8*(3 + 8)
    EXPECT_EQ(output[127], 127.0f);  // k=7 j=3 i=3: c2=1 offset=3 w2=7 h2=7
}

TEST(ReorgForward, IsAPermutationFollowingDarknetsFormula) {
    const Layer layer = make_reorg_layer({12, 6, 4}, 2);
    const std::vector<float> output = reorg_of_iota(layer);
    const int w = 4, h = 6, c = 12, s = 2, out_c = c / (s * s);
    for (int k = 0; k < c; ++k) {
        for (int j = 0; j < h; ++j) {
            for (int i = 0; i < w; ++i) {
                const int w2 = i * s + (k / out_c) % s;
                const int h2 = j * s + (k / out_c) / s;
                const int out_index = w2 + w * s * (h2 + h * s * (k % out_c));
                ASSERT_EQ(output[i + w * (j + h * k)], static_cast<float>(out_index));
            }
        }
    }
    std::vector<float> sorted = output;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_EQ(sorted[i], static_cast<float>(i));
}

TEST(ReorgForward, RejectsChannelsNotDivisibleByStrideSquared) {
    const Layer layer = make_reorg_layer({6, 4, 4}, 2);
    std::vector<float> input(layer.input.size()), output(layer.input.size());
    EXPECT_THROW(reorg_forward(layer, input.data(), output.data()), Error);
}

}  // namespace
}  // namespace fpgacnn::test

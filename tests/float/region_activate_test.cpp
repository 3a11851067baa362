#include <gtest/gtest.h>

#include <cmath>

#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"
#include "naive_ops.hpp"

namespace fpgacnn::test {
namespace {

constexpr int kNum = 2, kClasses = 3, kCoords = 4, kEntries = kCoords + kClasses + 1;
const TensorShape kShape{kNum * kEntries, 2, 3};
constexpr std::size_t kPlane = 6;

RegionParams region_params(bool softmax) {
    return make_region_layer(0, kShape, kNum, kClasses, softmax).region();
}

float& entry(std::vector<float>& data, int anchor, int e, std::size_t cell) {
    return data[(static_cast<std::size_t>(anchor) * kEntries + e) * kPlane + cell];
}

TEST(RegionActivate, MatchesPerCellReference) {
    for (const bool softmax : {true, false}) {
        const std::vector<float> raw = random_values(kShape.size(), 9, -4.0f, 4.0f);
        std::vector<float> data = raw;
        region_activate(region_params(softmax), kShape, data.data());
        const std::vector<float> expected = naive_region(region_params(softmax), kShape, raw);
        for (std::size_t i = 0; i < data.size(); ++i) {
            ASSERT_NEAR(data[i], expected[i], 1e-6) << "index " << i << " softmax " << softmax;
        }
    }
}

TEST(RegionActivate, SoftmaxSumsToOnePerCellAndKeepsBoxSizesRaw) {
    const std::vector<float> raw = random_values(kShape.size(), 3, -6.0f, 6.0f);
    std::vector<float> data = raw;
    region_activate(region_params(true), kShape, data.data());
    for (int n = 0; n < kNum; ++n) {
        for (std::size_t cell = 0; cell < kPlane; ++cell) {
            double sum = 0;
            for (int k = 0; k < kClasses; ++k) sum += entry(data, n, kCoords + 1 + k, cell);
            EXPECT_NEAR(sum, 1.0, 1e-6);
            EXPECT_EQ(entry(data, n, 2, cell), raw[(n * kEntries + 2) * kPlane + cell]);
            EXPECT_EQ(entry(data, n, 3, cell), raw[(n * kEntries + 3) * kPlane + cell]);
        }
    }
}

TEST(RegionActivate, LogisticValues) {
    std::vector<float> data(kShape.size(), 0.0f);
    entry(data, 1, 0, 4) = 2.0f;        // x of anchor 1
    entry(data, 0, 1, 0) = -3.0f;       // y of anchor 0
    entry(data, 1, kCoords, 5) = 1.0f;  // objectness of anchor 1
    region_activate(region_params(true), kShape, data.data());
    EXPECT_FLOAT_EQ(entry(data, 1, 0, 4), 0.880797077977882f);
    EXPECT_FLOAT_EQ(entry(data, 0, 1, 0), 0.0474258731775668f);
    EXPECT_FLOAT_EQ(entry(data, 1, kCoords, 5), 0.731058578630005f);
    EXPECT_FLOAT_EQ(entry(data, 0, 0, 0), 0.5f);
    EXPECT_FLOAT_EQ(entry(data, 0, kCoords + 1, 0), 1.0f / 3.0f);  // equal logits
}

TEST(RegionActivate, RejectsChannelMismatch) {
    std::vector<float> data(kShape.size());
    EXPECT_THROW(region_activate(region_params(true), {kShape.c - 1, 2, 3}, data.data()), Error);
}

}  // namespace
}  // namespace fpgacnn::test

// [avgpool] and [crop] on int16 (docs/arithmetic.md, "Classifier layers"): the mean rounded half up at
// the input's exponent, and the crop's centred window with 2x - 1 at the exponent, saturated to the width.
#include <gtest/gtest.h>

#include <vector>

#include "fpgacnn/int16_ops.hpp"

namespace fpgacnn {
namespace {

Layer layer_of(LayerType type, TensorShape input, TensorShape output) {
    Layer layer;
    layer.type = type;
    layer.input = input;
    layer.output = output;
    if (type == LayerType::AvgPool) layer.params = AvgPoolParams{};
    if (type == LayerType::Crop) layer.params = CropParams{};
    return layer;
}

TEST(Int16Avgpool, MeanRoundedHalfUpPerChannel) {
    const Layer avgpool = layer_of(LayerType::AvgPool, {3, 2, 2}, {3, 1, 1});
    // Channel means: -2.5 -> -2 (half up), 1.5 -> 2, -0.75 -> -1.
    const std::vector<int16_t> input = {-3, -2, -3, -2, 1, 2, 1, 2, -1, -1, -1, 0};
    std::vector<int16_t> output(3);
    int16_avgpool(avgpool, input.data(), output.data());
    EXPECT_EQ(output, (std::vector<int16_t>{-2, 2, -1}));
    const std::vector<int16_t> extremes = {32767,  32767,  32767, 32767, -32768, -32768,
                                           -32768, -32768, 0,     0,     0,      0};
    int16_avgpool(avgpool, extremes.data(), output.data());
    EXPECT_EQ(output, (std::vector<int16_t>{32767, -32768, 0}));  // within range: nothing saturates
}

TEST(Int16Crop, CentredWindowTwiceMinusOneSaturated) {
    const Layer crop = layer_of(LayerType::Crop, {1, 3, 4}, {1, 1, 2});
    // Row 1 (dh = 1), columns 1..2 (dw = 1): 0.25 and 1.0 at q = 14 become -0.5 and 1.0.
    std::vector<int16_t> input(12, 0);
    input[5] = 4096;
    input[6] = 16384;
    std::vector<int16_t> output(2);
    int16_crop(crop, 14, 16, input.data(), output.data());
    EXPECT_EQ(output, (std::vector<int16_t>{-8192, 16384}));
    int16_crop(crop, 14, 8, input.data(), output.data());  // 8 bits saturate at [-128, 127]
    EXPECT_EQ(output, (std::vector<int16_t>{-128, 127}));
}

}  // namespace
}  // namespace fpgacnn

// The float path's YOLOv3 / YOLOv4-tiny layers on hand-checked cases: [upsample], [shortcut] (same and
// different sizes, as darknet's shortcut_cpu), [route] groups and the [yolo] activation.
#include <gtest/gtest.h>

#include <cmath>

#include "fpgacnn/float_ops.hpp"

namespace fpgacnn::test {
namespace {

Layer layer_of(LayerType type, int index, TensorShape input, TensorShape output) {
    Layer layer;
    layer.type = type;
    layer.index = index;
    layer.input = input;
    layer.output = output;
    return layer;
}

TEST(UpsampleForward, NearestNeighbourPerChannel) {
    Layer layer = layer_of(LayerType::Upsample, 1, {2, 1, 2}, {2, 2, 4});
    layer.params = UpsampleParams{2};
    const std::vector<float> input = {1, 2, 3, 4};
    std::vector<float> output(layer.output.size());
    upsample_forward(layer, input.data(), output.data());
    EXPECT_EQ(output, (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(ShortcutForward, AddsThenActivates) {
    Layer layer = layer_of(LayerType::Shortcut, 2, {1, 1, 3}, {1, 1, 3});
    layer.params = ShortcutParams{0, Activation::Relu};
    const std::vector<float> input = {1, -5, 2};
    const std::vector<float> added = {0.5f, 1, -3};
    std::vector<float> output(3);
    shortcut_forward(layer, input.data(), added.data(), {1, 1, 3}, output.data());
    EXPECT_EQ(output[0], 1.5f);
    EXPECT_EQ(output[1], 0.0f);
    EXPECT_EQ(output[2], 0.0f);
}

TEST(ShortcutForward, DifferentSizesAndChannelsAddTheOverlap) {
    // darknet's shortcut_cpu with a 4x4x1 `from` onto a 2x2x2 output: stride 2 (every other pixel of
    // `from`), only channel 0 (min of the channel counts); channel 1 stays a copy.
    Layer layer = layer_of(LayerType::Shortcut, 2, {2, 2, 2}, {2, 2, 2});
    layer.params = ShortcutParams{0, Activation::Linear};
    const std::vector<float> input = {1, 1, 1, 1, 7, 7, 7, 7};
    std::vector<float> added(16);
    for (int i = 0; i < 16; ++i) added[i] = static_cast<float>(i);
    std::vector<float> output(8);
    shortcut_forward(layer, input.data(), added.data(), {1, 4, 4}, output.data());
    EXPECT_EQ(output, (std::vector<float>{1, 3, 9, 11, 7, 7, 7, 7}));
    // And a smaller `from` (2x2) onto a 4x4 output: sample 2, every other output pixel gets an add.
    Layer up = layer_of(LayerType::Shortcut, 2, {1, 4, 4}, {1, 4, 4});
    up.params = ShortcutParams{0, Activation::Linear};
    const std::vector<float> zeros(16, 0.0f);
    const std::vector<float> small = {1, 2, 3, 4};
    std::vector<float> big(16);
    shortcut_forward(up, zeros.data(), small.data(), {1, 2, 2}, big.data());
    EXPECT_EQ(big, (std::vector<float>{1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0}));
}

TEST(RouteForward, GroupsTakeOneChannelSliceOfEachInput) {
    Layer layer = layer_of(LayerType::Route, 1, {2, 1, 2}, {2, 1, 2});
    layer.params = RouteParams{{0}, 2, 1};
    const std::vector<std::vector<float>> outputs = {{1, 2, 3, 4, 5, 6, 7, 8}, {}};
    std::vector<float> output(4);
    route_forward(layer, outputs, output.data());
    EXPECT_EQ(output, (std::vector<float>{5, 6, 7, 8}));
}

TEST(YoloActivate, LogisticOnXyObjectnessAndClassesOnly) {
    YoloParams yolo;
    yolo.classes = 1;
    yolo.total = 1;
    yolo.mask = {0};
    yolo.anchors = {10, 10};
    std::vector<float> data = {0, 2, -1, 3, 0, 1};  // x, y, w, h, objectness, class at one cell
    yolo_activate(yolo, {6, 1, 1}, data.data());
    const auto logistic = [](double x) { return static_cast<float>(1. / (1. + std::exp(-x))); };
    EXPECT_EQ(data, (std::vector<float>{0.5f, logistic(2), -1, 3, 0.5f, logistic(1)}));
    // scale_x_y (YOLOv4): x*s - (s - 1)/2 after the logistic, w and h untouched.
    yolo.scale_x_y = 1.05f;
    std::vector<float> scaled = {0, 2, -1, 3, 0, 1};
    yolo_activate(yolo, {6, 1, 1}, scaled.data());
    const auto shift = static_cast<float>(-0.5 * (static_cast<double>(1.05f) - 1));
    EXPECT_EQ(scaled[0], 0.5f * 1.05f + shift);
    EXPECT_EQ(scaled[1], logistic(2) * 1.05f + shift);
    EXPECT_EQ(scaled[2], -1.0f);
}

}  // namespace
}  // namespace fpgacnn::test

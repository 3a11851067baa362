#include <gtest/gtest.h>

#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn::test {
namespace {

Layer make_route_layer(int index, std::vector<int> inputs, TensorShape output) {
    Layer layer;
    layer.type = LayerType::Route;
    layer.index = index;
    layer.output = output;
    layer.params = RouteParams{std::move(inputs)};
    return layer;
}

TEST(RouteForward, ConcatenatesInputsInListedOrder) {
    // Layer 0: 2 channels of 2x2, layer 1: unused, layer 2: 1 channel of 2x2.
    const std::vector<std::vector<float>> outputs = {
        {1, 2, 3, 4, 5, 6, 7, 8}, {-1, -1, -1, -1}, {9, 10, 11, 12}, {}};
    const Layer layer = make_route_layer(3, {2, 0}, {3, 2, 2});
    std::vector<float> output(layer.output.size());
    route_forward(layer, outputs, output.data());
    EXPECT_EQ(output, (std::vector<float>{9, 10, 11, 12, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(RouteForward, SingleInputIsACopy) {
    const std::vector<std::vector<float>> outputs = {{1, 2, 3}, {}};
    const Layer layer = make_route_layer(1, {0}, {3, 1, 1});
    std::vector<float> output(3);
    route_forward(layer, outputs, output.data());
    EXPECT_EQ(output, outputs[0]);
}

TEST(RouteForward, RejectsLaterLayersAndSizeMismatch) {
    const std::vector<std::vector<float>> outputs = {{1, 2}, {3, 4}, {}};
    std::vector<float> output(4);
    EXPECT_THROW(route_forward(make_route_layer(1, {1}, {2, 1, 1}), outputs, output.data()), Error);
    EXPECT_THROW(route_forward(make_route_layer(2, {0, 1}, {3, 1, 1}), outputs, output.data()), Error);
}

}  // namespace
}  // namespace fpgacnn::test

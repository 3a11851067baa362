#include <gtest/gtest.h>

#include <thread>

#include "fpgacnn/error.hpp"
#include "fpgacnn/float_engine.hpp"
#include "fpgacnn/float_ops.hpp"
#include "naive_ops.hpp"

namespace fpgacnn::test {
namespace {

constexpr int kRegionAnchors = 2, kRegionClasses = 2;
constexpr int kRegionChannels = kRegionAnchors * (4 + kRegionClasses + 1);

// conv 3x3 -> maxpool 2/2 (odd size) -> conv 1x1 -> region, built by hand.
Network tiny_detector() {
    Network network;
    network.cfg_path = "tiny-handmade.cfg";
    network.input = {3, 13, 11};
    network.layers.push_back(make_conv_layer(0, network.input, 8, 3, 1, 1, Activation::Leaky, 1));
    network.layers.push_back(make_maxpool_layer(1, network.layers[0].output, 2, 2));
    network.layers.push_back(
        make_conv_layer(2, network.layers[1].output, kRegionChannels, 1, 1, 0, Activation::Linear, 2));
    network.layers.push_back(
        make_region_layer(3, network.layers[2].output, kRegionAnchors, kRegionClasses, true));
    network.weights_loaded = true;
    return network;
}

Layer make_layer(LayerType type, int index, TensorShape input, TensorShape output,
                 decltype(Layer::params) params) {
    Layer layer;
    layer.type = type;
    layer.index = index;
    layer.input = input;
    layer.output = output;
    layer.params = std::move(params);
    return layer;
}

TEST(FloatEngine, TinyDetectorEqualsChainedNaiveOps) {
    const Network network = tiny_detector();
    FloatEngine engine(network);
    const std::vector<float> input = random_values(network.input.size(), 21, 0.0f, 1.0f);

    const std::vector<float>& result = engine.run(input.data());

    const std::vector<float> conv1 = naive_conv(network.layers[0], input);
    const std::vector<float> pool = naive_maxpool(network.layers[1], conv1);
    const std::vector<float> conv2 = naive_conv(network.layers[2], pool);
    const std::vector<float> region =
        naive_region(network.layers[3].region(), network.layers[3].output, conv2);
    EXPECT_LT(max_relative_diff(engine.layer_output(0), conv1), 1e-5);
    EXPECT_LT(max_relative_diff(engine.layer_output(1), pool), 1e-5);
    EXPECT_LT(max_relative_diff(engine.layer_output(2), conv2), 1e-5);
    ASSERT_EQ(result.size(), region.size());
    EXPECT_LT(max_relative_diff(result, region), 1e-5);
    EXPECT_EQ(&result, &engine.layer_output(3));
}

TEST(FloatEngine, RunsAreRepeatable) {
    const Network network = tiny_detector();
    FloatEngine engine(network);
    const std::vector<float> first_input = random_values(network.input.size(), 1, 0.0f, 1.0f);
    const std::vector<float> second_input = random_values(network.input.size(), 2, 0.0f, 1.0f);
    const std::vector<float> first = engine.run(first_input.data());
    engine.run(second_input.data());
    EXPECT_EQ(engine.run(first_input.data()), first);
}

TEST(FloatEngine, RouteAndReorgFollowTheOps) {
    // 0 conv -> 1 maxpool -> 2 conv -> 3 route[0] -> 4 reorg -> 5 route[4, 2] -> 6 conv 1x1 -> 7 region
    Network network;
    network.cfg_path = "route-reorg-handmade.cfg";
    network.input = {3, 8, 8};
    auto& layers = network.layers;
    layers.push_back(make_conv_layer(0, network.input, 4, 3, 1, 1, Activation::Leaky, 1));
    layers.push_back(make_maxpool_layer(1, {4, 8, 8}, 2, 2));
    layers.push_back(make_conv_layer(2, {4, 4, 4}, 6, 3, 1, 1, Activation::Leaky, 2));
    layers.push_back(make_layer(LayerType::Route, 3, {}, {4, 8, 8}, RouteParams{{0}}));
    layers.push_back(make_layer(LayerType::Reorg, 4, {4, 8, 8}, {16, 4, 4}, ReorgParams{2}));
    layers.push_back(make_layer(LayerType::Route, 5, {}, {22, 4, 4}, RouteParams{{4, 2}}));
    layers.push_back(make_conv_layer(6, {22, 4, 4}, kRegionChannels, 1, 1, 0, Activation::Linear, 3));
    layers.push_back(make_region_layer(7, {kRegionChannels, 4, 4}, kRegionAnchors, kRegionClasses, true));
    network.weights_loaded = true;
    FloatEngine engine(network);
    const std::vector<float> input = random_values(network.input.size(), 4, 0.0f, 1.0f);
    const std::vector<float> result = engine.run(input.data());

    const std::vector<float> conv0 = naive_conv(layers[0], input);
    const std::vector<float> conv2 = naive_conv(layers[2], naive_maxpool(layers[1], conv0));
    std::vector<float> reorg(layers[4].output.size());
    reorg_forward(layers[4], conv0.data(), reorg.data());
    std::vector<float> concat = reorg;
    concat.insert(concat.end(), conv2.begin(), conv2.end());
    const std::vector<float> expected =
        naive_region(layers[7].region(), layers[7].output, naive_conv(layers[6], concat));
    EXPECT_LT(max_relative_diff(engine.layer_output(3), conv0), 1e-5);
    EXPECT_LT(max_relative_diff(engine.layer_output(5), concat), 1e-5);
    EXPECT_LT(max_relative_diff(result, expected), 1e-5);
}

TEST(FloatEngine, ConcurrentEnginesAgreeWithASingleRun) {
    // Big enough for the ops and the sgemm to share work between threads; two engines at once must
    // not disturb each other (they take turns on the one thread pool).
    Network network;
    network.cfg_path = "concurrent-handmade.cfg";
    network.input = {3, 128, 128};
    network.layers.push_back(make_conv_layer(0, network.input, 16, 3, 1, 1, Activation::Leaky, 1));
    network.layers.push_back(make_maxpool_layer(1, network.layers[0].output, 2, 2));
    network.layers.push_back(
        make_conv_layer(2, network.layers[1].output, kRegionChannels, 1, 1, 0, Activation::Linear, 2));
    network.layers.push_back(
        make_region_layer(3, network.layers[2].output, kRegionAnchors, kRegionClasses, true));
    network.weights_loaded = true;
    const std::vector<float> input = random_values(network.input.size(), 8, 0.0f, 1.0f);
    const std::vector<float> expected = FloatEngine(network).run(input.data());

    std::vector<float> other_result;
    std::thread other([&] {
        FloatEngine engine(network);
        for (int i = 0; i < 5; ++i) other_result = engine.run(input.data());
    });
    FloatEngine engine(network);
    std::vector<float> result;
    for (int i = 0; i < 5; ++i) result = engine.run(input.data());
    other.join();
    EXPECT_LT(max_relative_diff(result, expected), 1e-6);
    EXPECT_LT(max_relative_diff(other_result, expected), 1e-6);
}

TEST(FloatEngine, RejectsNetworkWithoutWeights) {
    Network network = tiny_detector();
    network.weights_loaded = false;
    EXPECT_THROW(FloatEngine{network}, Error);
    network.weights_loaded = true;
    network.layers[2].conv().weights.clear();
    EXPECT_THROW(FloatEngine{network}, Error);
}

TEST(FloatEngine, RejectsUnfoldedBatchnorm) {
    Network network = tiny_detector();
    ConvParams& conv = network.layers[0].conv();
    conv.batch_normalize = true;
    conv.bn_scales.assign(conv.filters, 1.0f);
    conv.bn_mean.assign(conv.filters, 0.0f);
    conv.bn_variance.assign(conv.filters, 1.0f);
    try {
        FloatEngine engine(network);
        FAIL() << "expected fpgacnn::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("batch-norm"), std::string::npos) << e.what();
    }
}

TEST(FloatEngine, RejectsShapeChainMismatch) {
    Network network = tiny_detector();
    network.layers[1].input.w += 1;
    EXPECT_THROW(FloatEngine{network}, Error);
}

TEST(FloatEngine, RejectsRouteToALaterLayerOrWithWrongSize) {
    Network network = tiny_detector();
    network.layers.push_back(make_layer(LayerType::Route, 4, {}, network.layers[1].output, RouteParams{{1}}));
    EXPECT_NO_THROW(FloatEngine{network});
    std::get<RouteParams>(network.layers[4].params).inputs = {4};
    EXPECT_THROW(FloatEngine{network}, Error);
    std::get<RouteParams>(network.layers[4].params).inputs = {1, 1};
    EXPECT_THROW(FloatEngine{network}, Error);
}

TEST(FloatEngine, LayerOutputOutOfRangeThrows) {
    const Network network = tiny_detector();
    const FloatEngine engine(network);
    EXPECT_THROW(engine.layer_output(4), Error);
    EXPECT_THROW(engine.layer_output(-1), Error);
    EXPECT_EQ(engine.layer_output(1).size(), network.layers[1].output.size());
}

}  // namespace
}  // namespace fpgacnn::test

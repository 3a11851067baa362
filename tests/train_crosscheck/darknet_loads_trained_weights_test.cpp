// fpgacnn-train's .weights as darknet reads them: libdarknet's load_weights on the output gives every
// conv array fpgacnn holds and the `seen` the run reached (so darknet's iteration and rate schedule
// continue from it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <darknet.h>

#include "../crosscheck/stderr_silencer.hpp"
#include "fpgacnn/darknet.hpp"
#include "train_tool_fixture.hpp"

namespace fpgacnn::crosscheck {
namespace {

std::vector<char> c_string(const std::string& text) {
    std::vector<char> chars(text.begin(), text.end());
    chars.push_back('\0');
    return chars;
}

void expect_same(const std::vector<float>& ours, const float* darknets, int count, const std::string& what) {
    ASSERT_EQ(ours.size(), static_cast<std::size_t>(count)) << what;
    for (int i = 0; i < count; ++i) ASSERT_EQ(ours[i], darknets[i]) << what << " [" << i << "]";
}

TEST(DarknetLoadsTrainedWeights, EveryArrayAndSeen) {
    const train_tool::test::TinyTrainingSet set =
        train_tool::test::make_tiny_training_set("darknet_loads_train");
    const train_tool::TrainOptions options = train_tool::test::tiny_options(set, "trained", 3);
    train_tool::test::train(options);

    Network ours = load_darknet_cfg(set.cfg);
    load_darknet_weights(ours, options.out);
    std::vector<char> cfg = c_string(set.cfg);
    std::vector<char> weights = c_string(options.out);
    network* net = nullptr;
    {
        StderrSilencer quiet;
        net = parse_network_cfg(cfg.data());
        load_weights(net, weights.data());
    }
    ASSERT_NE(net, nullptr);
    EXPECT_EQ(*net->seen, 12U);  // 3 iterations of batch 4
    EXPECT_EQ(get_current_batch(net), 3U);
    int convs = 0;
    for (const Layer& layer : ours.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const ::layer& theirs = net->layers[layer.index];
        const ConvParams& conv = layer.conv();
        const std::string name = "layer " + std::to_string(layer.index);
        expect_same(conv.weights, theirs.weights, theirs.nweights, name + " weights");
        expect_same(conv.biases, theirs.biases, theirs.n, name + " biases");
        if (theirs.batch_normalize) {
            expect_same(conv.bn_scales, theirs.scales, theirs.n, name + " scales");
            expect_same(conv.bn_mean, theirs.rolling_mean, theirs.n, name + " rolling mean");
            expect_same(conv.bn_variance, theirs.rolling_variance, theirs.n, name + " rolling variance");
        }
        ++convs;
    }
    EXPECT_EQ(convs, 3);
    free_network(net);
}

}  // namespace
}  // namespace fpgacnn::crosscheck

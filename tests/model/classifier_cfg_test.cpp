// darknet's classifier sections in the cfg parser: shapes as darknet's make_*_layer computes them,
// [connected] as a 1x1 conv over the flattened input, the options fpgacnn refuses named in the message,
// and the .weights order of a connected layer (biases, weights, then batch-norm).
#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const std::string kHead = "[net]\nwidth=12\nheight=10\nchannels=3\n\n";

Network parse(const std::string& body) { return parse_darknet_cfg(kHead + body, "classifier.cfg"); }

std::string parse_error(const std::string& body) {
    return test::error_message([&] { parse(body); });
}

TEST(ClassifierCfg, ShapesFollowDarknet) {
    const Network net = parse(
        "[crop]\ncrop_height=8\ncrop_width=6\nflip=1\nangle=0\n"
        "[convolutional]\nfilters=4\nsize=3\npad=1\nactivation=relu\n"
        "[connected]\noutput=7\nactivation=leaky\nbatch_normalize=1\n"
        "[dropout]\nprobability=.3\n"
        "[connected]\noutput=6\nactivation=linear\n"
        "[softmax]\ngroups=2\ntemperature=.5\n"
        "[cost]\ntype=sse\n");
    ASSERT_EQ(net.layers.size(), 7u);
    EXPECT_EQ(net.layers[0].type, LayerType::Crop);
    EXPECT_EQ(net.layers[0].output, (TensorShape{3, 8, 6}));
    EXPECT_FALSE(net.layers[0].crop().noadjust);
    const Layer& fc = net.layers[2];
    EXPECT_EQ(fc.type, LayerType::Convolutional);
    EXPECT_TRUE(fc.conv().connected);
    EXPECT_EQ(fc.input, (TensorShape{4 * 8 * 6, 1, 1}));  // the conv's 4x8x6 output, flattened
    EXPECT_TRUE(fc.reads(net.layers[1].output));
    EXPECT_EQ(fc.output, (TensorShape{7, 1, 1}));
    EXPECT_EQ(fc.conv().size, 1);
    EXPECT_EQ(fc.conv().activation, Activation::Leaky);
    EXPECT_EQ(net.layers[3].type, LayerType::Dropout);
    EXPECT_EQ(net.layers[3].output, (TensorShape{7, 1, 1}));
    EXPECT_EQ(net.layers[5].softmax().groups, 2);
    EXPECT_FLOAT_EQ(net.layers[5].softmax().temperature, 0.5f);
    EXPECT_EQ(net.layers[6].type, LayerType::Cost);
    EXPECT_TRUE(net.is_classifier());
    EXPECT_EQ(net.output_layer_indices(), std::vector<int>{5});  // the softmax, not the cost after it
    EXPECT_EQ(net.output_classes(), 6);
}

TEST(ClassifierCfg, AvgpoolIsGlobal) {
    const Network net = parse("[convolutional]\nfilters=5\nsize=1\nactivation=leaky\n[avgpool]\n[softmax]\n");
    EXPECT_EQ(net.layers[1].type, LayerType::AvgPool);
    EXPECT_EQ(net.layers[1].output, (TensorShape{5, 1, 1}));
    EXPECT_EQ(std::string(layer_type_name(net.layers[1].type)), "avgpool");
}

TEST(ClassifierCfg, ConnectedDefaultsToLogisticAsDarknet) {
    const Network net = parse("[connected]\noutput=3\n[softmax]\n");
    EXPECT_EQ(net.layers[0].conv().activation, Activation::Logistic);
    EXPECT_FALSE(net.layers[0].conv().batch_normalize);
}

TEST(ClassifierCfg, RefusesWhatItDoesNotImplementNamingTheOption) {
    EXPECT_THAT(parse_error("[connected]\noutput=3\n[softmax]\ntree=data/9k.tree\n"),
                AllOf(HasSubstr("[softmax] layer 1"), HasSubstr("softmax trees"), HasSubstr("9k.tree")));
    EXPECT_THAT(parse_error("[softmax]\ngroups=7\n"), AllOf(HasSubstr("groups=7"), HasSubstr("360")));
    EXPECT_THAT(parse_error("[crop]\ncrop_height=20\ncrop_width=4\n"),
                AllOf(HasSubstr("[crop] layer 0"), HasSubstr("larger than its input")));
    EXPECT_THAT(parse_error("[avgpool]\nsize=2\n"), HasSubstr("size"));
    EXPECT_THAT(parse_error("[local]\nfilters=3\nsize=3\n"),
                AllOf(HasSubstr("unsupported section [local]"), HasSubstr("[connected]")));
}

// The writer puts a connected layer's weights before its batch-norm arrays, as darknet's
// save_connected_weights does; the reader reads them back in that order.
TEST(ClassifierCfg, ConnectedWeightsOrderIsDarknets) {
    Network net = parse("[connected]\noutput=2\nbatch_normalize=1\nactivation=linear\n[softmax]\n");
    ConvParams& fc = net.layers[0].conv();
    const std::size_t inputs = 3 * 10 * 12;
    fc.biases = {1.0f, 2.0f};
    fc.weights.assign(2 * inputs, 0.25f);
    fc.bn_scales = {3.0f, 4.0f};
    fc.bn_mean = {5.0f, 6.0f};
    fc.bn_variance = {7.0f, 8.0f};
    net.weights_loaded = true;
    const std::string dir = test::scratch_dir("classifier_cfg_weights");
    const std::string path = dir + "/fc.weights";
    save_darknet_weights(net, path);
    std::ifstream file(path, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), expected_weights_bytes(net));
    std::vector<float> floats((bytes.size() - 20) / 4);
    std::memcpy(floats.data(), bytes.data() + 20, floats.size() * 4);
    EXPECT_EQ(floats[0], 1.0f);               // biases
    EXPECT_EQ(floats[2], 0.25f);              // then the weights
    EXPECT_EQ(floats[2 + 2 * inputs], 3.0f);  // then scales, mean, variance
    EXPECT_EQ(floats[2 + 2 * inputs + 5], 8.0f);
    Network loaded = parse("[connected]\noutput=2\nbatch_normalize=1\nactivation=linear\n[softmax]\n");
    load_darknet_weights(loaded, path);
    EXPECT_EQ(loaded.layers[0].conv().bn_mean, (std::vector<float>{5.0f, 6.0f}));
    EXPECT_EQ(loaded.layers[0].conv().weights, fc.weights);
}

}  // namespace
}  // namespace fpgacnn

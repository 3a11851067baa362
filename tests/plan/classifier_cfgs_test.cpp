// darknet's classifier cfgs (alexnet, vgg-16, resnet50, darknet19 from Debian's darknet) in fpgacnn-plan:
// every conv and [connected] (a 1x1 conv over the flattened input) is a device command, [avgpool] and
// [crop] are host layers in int16, [softmax] the host's float output layer, [dropout] an identity.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/plan.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

struct ClassifierCase {
    const char* cfg;
    int convs;      // [convolutional] layers
    int connected;  // [connected] layers
    int host;       // layers with no command: avgpool, crop, softmax, dropout, projection shortcuts
    TensorShape last;
};

class ClassifierCfgs : public testing::TestWithParam<ClassifierCase> {};

TEST_P(ClassifierCfgs, PlansEveryConvAndListsTheRestAsHostLayers) {
    const ClassifierCase& c = GetParam();
    const std::string path = darknet_file(std::string("cfg/") + c.cfg);
    const Network network = load_darknet_cfg(path);  // the engines' loader runs them now
    PlanOptions options;
    options.maxima.max_kernel = 11;  // alexnet's 11x11/4 and resnet50's 7x7/2 first layers
    options.maxima.max_stride = 4;
    const NetworkPlan plan = plan_network(network, options);
    const std::string table = format_plan_table(plan);
    int convs = 0;
    int connected = 0;
    int relu_convs = 0;
    int host = 0;
    int device_shortcuts = 0;
    int host_shortcuts = 0;
    for (const LayerPlan& lp : plan.layers) {
        const Layer& layer = network.layers[static_cast<std::size_t>(lp.index)];
        if (lp.type == LayerType::Convolutional) {
            EXPECT_TRUE(lp.on_device) << c.cfg << " layer " << lp.index;
            EXPECT_GT(lp.estimate.macs, 0u);
            EXPECT_EQ(lp.connected, layer.conv().connected);
            // The command carries the cfg's activation (alexnet and vgg-16 are relu, resnet50 leaky and
            // linear): a relu conv planned as linear would run wrong on the device.
            const Activation activation = layer.conv().activation;
            const uint32_t expected = activation == Activation::Relu    ? arith::kActivationRelu
                                      : activation == Activation::Leaky ? arith::kActivationLeaky
                                                                        : arith::kActivationLinear;
            EXPECT_EQ(lp.command.leaky, expected) << c.cfg << " layer " << lp.index;
            relu_convs += activation == Activation::Relu ? 1 : 0;
            (layer.conv().connected ? connected : convs) += 1;
            continue;
        }
        if (lp.type == LayerType::Shortcut) {
            // The kernel's shortcut op adds tensors of one shape: a projection shortcut (its `from` of
            // another shape, darknet's partial add) stays on the host, the rest run as commands.
            const bool same_shape =
                network.layers[static_cast<std::size_t>(layer.shortcut().from)].output == layer.output;
            EXPECT_EQ(lp.on_device, same_shape) << c.cfg << " layer " << lp.index;
            EXPECT_NE(lp.on_device, lp.on_host) << c.cfg << " layer " << lp.index;
            (lp.on_device ? device_shortcuts : host_shortcuts) += 1;
        }
        if (lp.on_device) continue;
        ++host;
        // avgpool, crop and a projection shortcut change values: the CPU's int16 code between commands.
        const bool int16_host =
            lp.type == LayerType::AvgPool || lp.type == LayerType::Crop || lp.type == LayerType::Shortcut;
        EXPECT_EQ(lp.on_host, int16_host) << c.cfg << " layer " << lp.index;
    }
    if (std::string(c.cfg) == "resnet50.cfg") {
        EXPECT_EQ(device_shortcuts, 12);
        EXPECT_EQ(host_shortcuts, 4);
    }
    EXPECT_EQ(convs, c.convs);
    EXPECT_EQ(connected, c.connected);
    if (std::string(c.cfg) == "alexnet.cfg" || std::string(c.cfg) == "vgg-16.cfg") {
        EXPECT_EQ(relu_convs, c.convs + c.connected - 1) << c.cfg;  // the last connected is linear
    }
    EXPECT_EQ(host, c.host);
    EXPECT_THAT(table, testing::HasSubstr("softmax")) << table;
    EXPECT_THAT(table, testing::HasSubstr("host layer, float after dequantization")) << table;
    EXPECT_EQ(network.layers.back().output, c.last);
    EXPECT_GT(plan.total.milliseconds, 0.0);
}

// Counts from the cfgs: alexnet 5 convs + 3 connected, 2 dropout, softmax; vgg-16 crop, 13 convs,
// 3 connected, 2 dropout, softmax; resnet50 50 convs, 16 shortcuts (12 on the device, the 4 projection
// ones on the host), avgpool, softmax; darknet19 19 convs, avgpool, softmax.
INSTANTIATE_TEST_SUITE_P(Debian, ClassifierCfgs,
                         testing::Values(ClassifierCase{"alexnet.cfg", 5, 3, 3, {1000, 1, 1}},
                                         ClassifierCase{"vgg-16.cfg", 13, 3, 4, {1000, 1, 1}},
                                         ClassifierCase{"resnet50.cfg", 50, 0, 6, {1000, 1, 1}},
                                         ClassifierCase{"darknet19.cfg", 19, 0, 2, {1000, 1, 1}}),
                         [](const testing::TestParamInfo<ClassifierCase>& param_info) {
                             std::string name = param_info.param.cfg;
                             return name.substr(0, name.find_first_of("-.")) + (name[0] == 'v' ? "16" : "");
                         });

}  // namespace
}  // namespace fpgacnn::test

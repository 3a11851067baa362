// darknet's classifier cfgs (alexnet, vgg-16, resnet50 from Debian's darknet) in fpgacnn-plan: the
// sections fpgacnn does not run become host layers with darknet's shapes and every conv is planned.
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
    int convs;
    int not_run;
    TensorShape last;
};

class ClassifierCfgs : public testing::TestWithParam<ClassifierCase> {};

TEST_P(ClassifierCfgs, PlansEveryConvAndListsTheRestAsHostLayers) {
    const ClassifierCase& c = GetParam();
    const std::string path = darknet_file(std::string("cfg/") + c.cfg);
    EXPECT_THROW(load_darknet_cfg(path), Error);  // the engines' loader still refuses what they cannot run
    const Network network = load_darknet_cfg_for_planning(path);
    PlanOptions options;
    options.maxima.max_kernel = 11;  // alexnet's 11x11/4 and resnet50's 7x7/2 first layers
    options.maxima.max_stride = 4;
    const NetworkPlan plan = plan_network(network, options);
    int convs = 0;
    int relu_convs = 0;
    int not_run = 0;
    int device_shortcuts = 0;
    int host_shortcuts = 0;
    for (const LayerPlan& lp : plan.layers) {
        if (lp.type == LayerType::Convolutional) {
            EXPECT_TRUE(lp.on_device) << c.cfg << " layer " << lp.index;
            EXPECT_GT(lp.estimate.macs, 0u);
            // The command carries the cfg's activation (alexnet and vgg-16 are relu, resnet50 leaky and
            // linear): a relu conv planned as linear would run wrong on the device.
            const Activation activation =
                network.layers[static_cast<std::size_t>(lp.index)].conv().activation;
            const uint32_t expected = activation == Activation::Relu    ? arith::kActivationRelu
                                      : activation == Activation::Leaky ? arith::kActivationLeaky
                                                                        : arith::kActivationLinear;
            EXPECT_EQ(lp.command.leaky, expected) << c.cfg << " layer " << lp.index;
            relu_convs += activation == Activation::Relu ? 1 : 0;
            ++convs;
        }
        if (lp.type == LayerType::Unsupported) {
            EXPECT_TRUE(lp.on_host && !lp.on_device) << c.cfg << " layer " << lp.index;
            ++not_run;
        }
        if (lp.type == LayerType::Shortcut) {
            // The kernel's shortcut op adds tensors of one shape: a projection shortcut (its `from` of
            // another shape, darknet's partial add) stays on the host, the rest run as commands.
            const Layer& layer = network.layers[static_cast<std::size_t>(lp.index)];
            const bool same_shape =
                network.layers[static_cast<std::size_t>(layer.shortcut().from)].output == layer.output;
            EXPECT_EQ(lp.on_device, same_shape) << c.cfg << " layer " << lp.index;
            EXPECT_NE(lp.on_device, lp.on_host) << c.cfg << " layer " << lp.index;
            (lp.on_device ? device_shortcuts : host_shortcuts) += 1;
        }
    }
    if (std::string(c.cfg) == "resnet50.cfg") {
        EXPECT_EQ(device_shortcuts, 12);
        EXPECT_EQ(host_shortcuts, 4);
    }
    EXPECT_EQ(convs, c.convs);
    if (std::string(c.cfg) != "resnet50.cfg") {
        EXPECT_EQ(relu_convs, c.convs) << c.cfg;
    }
    EXPECT_EQ(not_run, c.not_run);
    EXPECT_EQ(network.layers.back().output, c.last);
    EXPECT_GT(plan.total.milliseconds, 0.0);
}

// Counts from the cfgs: alexnet 5 convs + 3 connected, 2 dropout, softmax; vgg-16 crop, 13 convs,
// 3 connected, 2 dropout, softmax; resnet50 50 convs (16 shortcuts: 12 on the
// device, the 4 projection ones on the host), avgpool, softmax.
INSTANTIATE_TEST_SUITE_P(Debian, ClassifierCfgs,
                         testing::Values(ClassifierCase{"alexnet.cfg", 5, 6, {1000, 1, 1}},
                                         ClassifierCase{"vgg-16.cfg", 13, 7, {1000, 1, 1}},
                                         ClassifierCase{"resnet50.cfg", 50, 2, {1000, 1, 1}}),
                         [](const testing::TestParamInfo<ClassifierCase>& param_info) {
                             std::string name = param_info.param.cfg;
                             return name.substr(0, name.find_first_of("-.")) + (name[0] == 'v' ? "16" : "");
                         });

}  // namespace
}  // namespace fpgacnn::test

// Shapes of darknet's own YOLOv2 cfgs (Debian package 'darknet'), checked against what darknet prints.
#include <filesystem>

#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::HasSubstr;

TensorShape chw(int c, int h, int w) { return TensorShape{c, h, w}; }

TEST(DebianCfg, Yolov2At416HasDarknetShapes) {
    const Network net = load_darknet_cfg(test::darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    ASSERT_EQ(net.layers.size(), 32u);
    EXPECT_EQ(net.input, chw(3, 416, 416));
    EXPECT_EQ(net.layers[0].output, chw(32, 416, 416));
    EXPECT_EQ(net.layers[1].type, LayerType::MaxPool);
    EXPECT_EQ(net.layers[1].output, chw(32, 208, 208));
    EXPECT_EQ(net.layers[16].output, chw(512, 26, 26));
    EXPECT_EQ(net.layers[24].output, chw(1024, 13, 13));

    // [route] layers=-9 -> layer 16.
    ASSERT_EQ(net.layers[25].type, LayerType::Route);
    EXPECT_EQ(net.layers[25].route().inputs, std::vector<int>{16});
    EXPECT_EQ(net.layers[25].output, chw(512, 26, 26));
    // 1x1 conv to 64 maps, then reorg 26x26x64 -> 13x13x256.
    EXPECT_EQ(net.layers[26].output, chw(64, 26, 26));
    ASSERT_EQ(net.layers[27].type, LayerType::Reorg);
    EXPECT_EQ(net.layers[27].reorg().stride, 2);
    EXPECT_EQ(net.layers[27].input, chw(64, 26, 26));
    EXPECT_EQ(net.layers[27].output, chw(256, 13, 13));
    // [route] layers=-1,-4 -> 256 + 1024 channels.
    EXPECT_EQ(net.layers[28].route().inputs, (std::vector<int>{27, 24}));
    EXPECT_EQ(net.layers[28].output, chw(1280, 13, 13));
    EXPECT_EQ(net.layers[29].input.c, 1280);

    const Layer& head = net.layers[30];
    EXPECT_EQ(head.conv().activation, Activation::Linear);
    EXPECT_FALSE(head.conv().batch_normalize);
    EXPECT_EQ(head.conv().pad, 0);  // pad=1 with size=1 gives size/2 = 0
    const Layer& region = net.layers[31];
    ASSERT_EQ(region.type, LayerType::Region);
    EXPECT_EQ(region.output, chw(425, 13, 13));
    EXPECT_EQ(region.region().classes, 80);
    EXPECT_EQ(region.region().num, 5);
    EXPECT_EQ(region.region().coords, 4);
    EXPECT_TRUE(region.region().softmax);
    ASSERT_EQ(region.region().anchors.size(), 10u);
    EXPECT_FLOAT_EQ(region.region().anchors[0], 0.57273f);
    EXPECT_FLOAT_EQ(region.region().anchors[9], 9.16828f);
    EXPECT_EQ(net.region_layer_index(), 31);
    EXPECT_EQ(region.cfg_line, 241);
    EXPECT_FALSE(net.weights_loaded);
}

TEST(DebianCfg, Yolov2UsesCfgSizeWithoutOverride) {
    const Network net = load_darknet_cfg(test::darknet_file("cfg/yolov2.cfg"));
    EXPECT_EQ(net.input, chw(3, 608, 608));
    EXPECT_EQ(net.layers.back().output, chw(425, 19, 19));
}

TEST(DebianCfg, Yolov2TinyMaxpoolStride1Keeps13x13) {
    const Network net = load_darknet_cfg(test::darknet_file("cfg/yolov2-tiny.cfg"));
    ASSERT_EQ(net.layers.size(), 16u);
    const Layer& pool = net.layers[11];
    ASSERT_EQ(pool.type, LayerType::MaxPool);
    EXPECT_EQ(pool.maxpool().size, 2);
    EXPECT_EQ(pool.maxpool().stride, 1);
    EXPECT_EQ(pool.maxpool().padding, 1);  // darknet's default: size - 1
    EXPECT_EQ(pool.input, chw(512, 13, 13));
    EXPECT_EQ(pool.output, chw(512, 13, 13));
    EXPECT_EQ(net.layers.back().output, chw(425, 13, 13));
}

TEST(DebianCfg, Yolov2VocHas125ChannelRegion) {
    const Network net = load_darknet_cfg(test::darknet_file("cfg/yolov2-voc.cfg"));
    EXPECT_EQ(net.input, chw(3, 416, 416));
    EXPECT_EQ(net.layers.back().output, chw(125, 13, 13));
    EXPECT_EQ(net.layers.back().region().classes, 20);
}

TEST(DebianCfg, InputOverrideReplacesNetSize) {
    const Network net =
        load_darknet_cfg(test::darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{320, 320});
    EXPECT_EQ(net.input, chw(3, 320, 320));
    EXPECT_EQ(net.layers.back().output, chw(425, 10, 10));
}

TEST(DebianCfg, InputNotMultipleOf32FailsAtTheReorg) {
    const std::string message = test::error_message([] {
        load_darknet_cfg(test::darknet_file("cfg/yolov2.cfg"), InputSizeOverride{400, 400});
    });
    EXPECT_THAT(message, HasSubstr("yolov2.cfg:219: [reorg] layer 27: reorg on odd sizes"));
    EXPECT_THAT(message, HasSubstr("25x25x64"));
    EXPECT_THAT(message, HasSubstr("multiple of 32"));
}

TEST(DebianCfg, EveryYolov2CfgAndSharedModelCfgLoads) {
    namespace fs = std::filesystem;
    std::vector<std::string> cfgs;
    for (const auto& entry : fs::directory_iterator(test::darknet_file("cfg"))) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("yolov2", 0) == 0 && entry.path().extension() == ".cfg") cfgs.push_back(entry.path());
    }
    EXPECT_GE(cfgs.size(), 4u);
    if (!test::shared_dir().empty()) {
        for (const auto& model : fs::directory_iterator(test::shared_dir() + "/models")) {
            if (!model.is_directory()) continue;
            for (const auto& file : fs::directory_iterator(model.path())) {
                if (file.path().extension() == ".cfg") cfgs.push_back(file.path());
            }
        }
    }
    for (const std::string& cfg : cfgs) {
        SCOPED_TRACE(cfg);
        const Network net = load_darknet_cfg(cfg);
        EXPECT_EQ(net.layers.back().type, LayerType::Region);
        EXPECT_GT(net.conv_macs(), 0u);
    }
}

}  // namespace
}  // namespace fpgacnn

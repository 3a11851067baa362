// The trained YOLO-LITE models in shared/models (header 0.1, 32-bit seen): sizes match exactly
// and they load, with and without batch-norm. Skipped visibly when shared/ is absent.
#include <filesystem>

#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

struct SharedModel {
    const char* folder;
    const char* cfg;
    const char* weights;
    std::size_t parameters;  // from the folder's SOURCE.md
    int region_channels;
    bool batch_normalize;
};

class SharedModels : public ::testing::TestWithParam<SharedModel> {};

TEST_P(SharedModels, LoadsWithExactByteCount) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const SharedModel& model = GetParam();
    const std::string cfg = test::shared_model_file(model.folder, model.cfg);
    const std::string weights = test::shared_model_file(model.folder, model.weights);

    const Network parsed = load_darknet_cfg(cfg);
    // These files use the 16-byte (0.1) header; expected_weights_bytes() assumes the 20-byte one.
    EXPECT_EQ(std::filesystem::file_size(weights) + 4, expected_weights_bytes(parsed));
    EXPECT_EQ(expected_weights_bytes(parsed), 20 + 4 * model.parameters);

    const Network net = load_darknet_model(cfg, weights);
    EXPECT_TRUE(net.weights_loaded);
    EXPECT_EQ(net.weights_path, weights);
    EXPECT_EQ(net.input, (TensorShape{3, 224, 224}));
    EXPECT_EQ(net.layers.back().output, (TensorShape{model.region_channels, 7, 7}));
    const ConvParams& first = net.layers[0].conv();
    EXPECT_EQ(first.batch_normalize, model.batch_normalize);
    EXPECT_EQ(first.bn_folded(), model.batch_normalize);
    EXPECT_EQ(first.weights.size(), 16u * 3 * 3 * 3);
    EXPECT_NE(first.weights.front(), 0.0f);
}

INSTANTIATE_TEST_SUITE_P(YoloLite, SharedModels,
                         ::testing::Values(SharedModel{"yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg",
                                                       "tiny-yolov2-trial3-noBatch.weights", 572317, 125,
                                                       false},
                                           SharedModel{"yolo-lite-voc-bn", "tiny-yolov2-trial3.cfg",
                                                       "tiny-yolov2-trial3.weights", 574189, 125, true},
                                           SharedModel{"yolo-lite-coco", "trial6.cfg",
                                                       "trial6_653550.weights", 649417, 425, false}),
                         [](const ::testing::TestParamInfo<SharedModel>& param_info) {
                             std::string name = param_info.param.folder;
                             for (char& c : name) c = (c == '-') ? '_' : c;
                             return name;
                         });

}  // namespace
}  // namespace fpgacnn

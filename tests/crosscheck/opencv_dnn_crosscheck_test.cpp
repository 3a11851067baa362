// A second, independent reference: OpenCV's DNN module reading the same darknet cfg + weights, fed
// our letterboxed CHW buffer as a 1x3xHxW blob (cv::dnn::blobFromImage would letterbox differently).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <opencv2/dnn.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "crosscheck_models.hpp"
#include "fpgacnn/float_engine.hpp"
#include "tensor_diff.hpp"

namespace fpgacnn::crosscheck {
namespace {

constexpr double kOpenCvTolerance = 1e-3;

struct OpenCvOutputs {
    std::vector<float> last_conv;  // CHW, the darknet layout
    TensorShape last_conv_shape;
    cv::Mat region;  // rows = cell * anchors + anchor, cols = 4 coords, objectness, classes
};

// OpenCV's darknet importer ends a YOLOv2 net with ... -> last conv (+bn/leaky) -> Permute (to NHWC)
// -> Region "detection_out"; the layer feeding the Permute holds darknet's last conv output.
OpenCvOutputs run_opencv(const PreparedModel& model, Image input) {
    cv::dnn::Net net = cv::dnn::readNetFromDarknet(model.cfg_path, model.weights_path);
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    const int region_id = net.getLayerId("detection_out");
    if (region_id < 0 || net.getLayer(region_id - 1)->type != "Permute")
        throw std::runtime_error("unexpected OpenCV layer graph: no Permute -> Region at its end");
    const std::string last_conv = net.getLayer(region_id - 2)->name;

    const int dims[] = {1, input.c, input.h, input.w};
    net.setInput(cv::Mat(4, dims, CV_32F, input.data.data()));
    std::vector<cv::Mat> outs;
    net.forward(outs, std::vector<cv::String>{last_conv, "detection_out"});

    OpenCvOutputs result;
    const cv::Mat& conv = outs[0];
    if (conv.dims != 4 || !conv.isContinuous())
        throw std::runtime_error("unexpected last-conv blob from OpenCV");
    result.last_conv_shape = {conv.size[1], conv.size[2], conv.size[3]};
    result.last_conv.assign(conv.ptr<float>(), conv.ptr<float>() + conv.total());
    result.region = outs[1].clone();
    return result;
}

class OpenCvDnnCrosscheck : public testing::TestWithParam<ModelSpec> {
protected:
    void SetUp() override {
        CROSSCHECK_REQUIRE_MODEL(GetParam());
        model_ = prepare_model(GetParam());
        input_ = letterboxed_sample("dog.jpg", model_.network);
        engine_ = std::make_unique<FloatEngine>(model_.network);
        engine_->run(input_.data.data());
        opencv_ = run_opencv(model_, input_);
        region_index_ = model_.network.region_layer_index();
    }

    PreparedModel model_;
    Image input_;
    std::unique_ptr<FloatEngine> engine_;
    OpenCvOutputs opencv_;
    int region_index_ = 0;
};

TEST_P(OpenCvDnnCrosscheck, LastConvOutputMatches) {
    const Layer& last_conv = model_.network.layers[region_index_ - 1];
    ASSERT_EQ(last_conv.type, LayerType::Convolutional);
    ASSERT_EQ(opencv_.last_conv_shape, last_conv.output);
    const TensorDiff diff = compare_tensors(engine_->layer_output(region_index_ - 1), opencv_.last_conv);
    EXPECT_LE(diff.max_abs_diff, kOpenCvTolerance) << describe(diff, "opencv");
    std::cout << "[ measured ] " << GetParam().name << " last conv vs OpenCV: " << describe(diff, "opencv")
              << "\n";
}

// Maps OpenCV's region layout onto darknet's activated buffer: row (y * cols + x) * anchors + a holds
// x, y, w, h relative to the grid (not corrected to the image), logistic objectness, and
// objectness * softmax per class, zeroed below OpenCV's threshold. exp(tw) makes w/h large for
// synthetic weights, hence a deviation relative to the value's magnitude.
TEST_P(OpenCvDnnCrosscheck, RegionOutputMapsOntoOurs) {
    const Layer& layer = model_.network.layers[region_index_];
    const RegionParams& region = layer.region();
    const std::vector<float>& ours = engine_->layer_output(region_index_);
    const int cols = layer.output.w;
    const int rows = layer.output.h;
    const int entries = region.coords + 1 + region.classes;
    ASSERT_EQ(opencv_.region.rows, rows * cols * region.num);
    ASSERT_EQ(opencv_.region.cols, entries);

    const std::size_t plane = static_cast<std::size_t>(rows) * cols;
    const auto deviation = [](double got, double want) {
        return std::fabs(got - want) / std::max(1.0, std::fabs(want));
    };
    double worst = 0;
    int kept_class_probs = 0;
    for (int y = 0; y < rows; ++y) {
        for (int x = 0; x < cols; ++x) {
            for (int a = 0; a < region.num; ++a) {
                const auto at = [&](int entry) { return ours[(a * entries + entry) * plane + y * cols + x]; };
                const float* cv_row = opencv_.region.ptr<float>((y * cols + x) * region.num + a);
                const double expected[] = {(x + at(0)) / cols, (y + at(1)) / rows,
                                           std::exp(at(2)) * region.anchors[2 * a] / cols,
                                           std::exp(at(3)) * region.anchors[2 * a + 1] / rows, at(4)};
                for (int k = 0; k < 5; ++k) worst = std::max(worst, deviation(cv_row[k], expected[k]));
                for (int j = 0; j < region.classes; ++j) {
                    const float opencv_prob = cv_row[5 + j];
                    if (opencv_prob == 0) continue;  // below OpenCV's own threshold
                    ++kept_class_probs;
                    worst = std::max(worst, deviation(opencv_prob, static_cast<double>(at(4)) * at(5 + j)));
                }
            }
        }
    }
    // Synthetic weights spread the class probabilities too thin for OpenCV to keep any.
    if (!GetParam().weights_path.empty()) {
        EXPECT_GT(kept_class_probs, 0) << "OpenCV kept no class probability: nothing was compared";
    }
    EXPECT_LE(worst, kOpenCvTolerance);
    std::cout << "[ measured ] " << GetParam().name << " region vs OpenCV (mapped): max |diff| / max(1, |x|) "
              << worst << " over coords, objectness and " << kept_class_probs << " class probs\n";
}

INSTANTIATE_TEST_SUITE_P(Models, OpenCvDnnCrosscheck,
                         testing::Values(yolo_lite_voc(), yolo_lite_voc_bn(), yolo_lite_coco(),
                                         yolov2_tiny_synthetic()),
                         model_param_name);

}  // namespace
}  // namespace fpgacnn::crosscheck

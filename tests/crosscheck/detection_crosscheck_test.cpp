// Whole detection pipeline: fpgacnn's Detector (load_image, letterbox, float forward, region decode,
// NMS, print order, pixel math) against `darknet detector test` semantics on the same image files,
// and against the reference listing of SOURCE.md.
#include <gtest/gtest.h>

#include <iostream>
#include <tuple>

#include "crosscheck_models.hpp"
#include "darknet_reference.hpp"
#include "detection_rows.hpp"
#include "fpgacnn/detector.hpp"
#include "source_listing.hpp"
#include "stb_image_loader.hpp"
#include "test_paths.hpp"

namespace fpgacnn::crosscheck {
namespace {

constexpr DetectionTolerance kDarknetTolerance{0.001f, 0.001f, 1};

std::vector<DetectionRow> detect_with_fpgacnn(const PreparedModel& model, const Image& image, float thresh) {
    DetectorOptions options;
    options.backend.device = "cpu";
    options.thresh = thresh;
    Detector detector(model.network, model.class_names, options);
    return rows_of(detector.detect(image).detections);
}

// darknet clamps left/top at 0 and right/bottom at the last pixel only (its draw_box clamps the rest
// when drawing); fpgacnn clamps all four edges, which is what is drawn (docs/darknet-semantics.md). The
// two differ only for a box that lies wholly outside the image, which random weights produce.
std::vector<DetectionRow> clamped_to_image(std::vector<DetectionRow> rows, int w, int h) {
    const auto clamp = [](int v, int last) { return v < 0 ? 0 : (v > last ? last : v); };
    for (DetectionRow& row : rows) {
        row.left = clamp(row.left, w - 1);
        row.right = clamp(row.right, w - 1);
        row.top = clamp(row.top, h - 1);
        row.bottom = clamp(row.bottom, h - 1);
    }
    return rows;
}

using DetectionCase = std::tuple<ModelSpec, std::string, float>;  // model, image, thresh

class DetectionCrosscheck : public testing::TestWithParam<DetectionCase> {};

TEST_P(DetectionCrosscheck, DetectorMatchesDarknetDetectorTest) {
    const auto& [spec, image_name, thresh] = GetParam();
    CROSSCHECK_REQUIRE_MODEL(spec);
    const PreparedModel model = prepare_model(spec);
    const std::string path = test::darknet_file("data/" + image_name);

    const Image image = load_image(path);
    const std::vector<DetectionRow> ours = detect_with_fpgacnn(model, image, thresh);
    DarknetReference darknet(model.cfg_path, model.weights_path, model.width, model.height);
    const std::vector<DetectionRow> reference =
        clamped_to_image(rows_of(darknet.detect(path, thresh), model.class_names), image.w, image.h);

    EXPECT_EQ(mismatches(ours, reference, kDarknetTolerance, "darknet"), "");
    const RowsDiff diff = max_differences(ours, reference);
    std::cout << "[ measured ] " << spec.name << " " << image_name << " thresh " << thresh << ": "
              << reference.size() << " detections, max |prob diff| " << diff.prob << ", max |box diff| "
              << diff.box << ", max edge diff " << diff.pixels << " px\n";
}

std::string detection_case_name(const testing::TestParamInfo<DetectionCase>& case_info) {
    const auto& [spec, image, thresh] = case_info.param;
    return spec.name + "_" + image.substr(0, image.find('.')) + "_thresh" +
           std::to_string(static_cast<int>(thresh * 100));
}

INSTANTIATE_TEST_SUITE_P(
    TrainedModels, DetectionCrosscheck,
    testing::Combine(testing::Values(yolo_lite_voc(), yolo_lite_voc_bn(), yolo_lite_coco()),
                     testing::Values("dog.jpg", "person.jpg"), testing::Values(0.25f, 0.5f)),
    detection_case_name);

// YOLOv3's heads with synthetic weights: every head's boxes (objectness above thresh), NMS over all of
// them together, as get_network_boxes + do_nms_sort. Random weights give hundreds to thousands of
// boxes with probabilities spread evenly over (thresh, 1), so some land within float rounding of the
// threshold at low values (at 0.6 one of 3059 boxes flipped); these thresholds leave a margin.
INSTANTIATE_TEST_SUITE_P(YoloV3TinySynthetic, DetectionCrosscheck,
                         testing::Combine(testing::Values(yolov3_tiny_synthetic()),
                                          testing::Values("dog.jpg", "person.jpg", "eagle.jpg"),
                                          testing::Values(0.7f)),
                         detection_case_name);
INSTANTIATE_TEST_SUITE_P(YoloV3Synthetic, DetectionCrosscheck,
                         testing::Combine(testing::Values(yolov3_320_synthetic()),
                                          testing::Values("dog.jpg", "person.jpg"), testing::Values(0.8f)),
                         detection_case_name);

class DetectorVsSourceListing : public testing::Test {
protected:
    void SetUp() override {
        FPGACNN_REQUIRE_SHARED_MODELS();
        model_ = prepare_model(yolo_lite_voc());
    }

    void expect_listing(Image (*load)(const std::string&), const DetectionTolerance& tolerance) {
        for (const ListedImage& listed : yolo_lite_voc_listing()) {
            SCOPED_TRACE(listed.image);
            const Image image = load(test::darknet_file(std::string("data/") + listed.image));
            const std::vector<DetectionRow> ours = detect_with_fpgacnn(model_, image, 0.25f);
            EXPECT_EQ(mismatches(ours, rows_of(listed), tolerance, "SOURCE.md"), "");
            const RowsDiff diff = max_differences(ours, rows_of(listed));
            std::cout << "[ measured ] " << listed.image << " vs SOURCE.md: max |prob diff| " << diff.prob
                      << ", max |box diff| " << diff.box << ", max edge diff " << diff.pixels << " px\n";
        }
    }

    PreparedModel model_;
};

// fpgacnn as shipped (OpenCV decoding): the listing's detections, within the decoders' difference.
TEST_F(DetectorVsSourceListing, MatchesWithOpenCvDecoding) {
    expect_listing(load_image, kOpenCvDecodedTolerance);
}

// Fed the listing's own decoder output, fpgacnn must reproduce it to the printed digits.
TEST_F(DetectorVsSourceListing, ReproducesWithStbDecoding) {
    if (!stb_image_available()) GTEST_SKIP() << "stb_image not found (Debian package libstb-dev)";
    expect_listing(load_image_stb, kStbDecodedTolerance);
}

}  // namespace
}  // namespace fpgacnn::crosscheck

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

using DetectionCase = std::tuple<ModelSpec, std::string, float>;  // model, image, thresh

class DetectionCrosscheck : public testing::TestWithParam<DetectionCase> {};

TEST_P(DetectionCrosscheck, DetectorMatchesDarknetDetectorTest) {
    const auto& [spec, image_name, thresh] = GetParam();
    CROSSCHECK_REQUIRE_MODEL(spec);
    const PreparedModel model = prepare_model(spec);
    const std::string path = test::darknet_file("data/" + image_name);

    const std::vector<DetectionRow> ours = detect_with_fpgacnn(model, load_image(path), thresh);
    DarknetReference darknet(model.cfg_path, model.weights_path, model.width, model.height);
    const std::vector<DetectionRow> reference = rows_of(darknet.detect(path, thresh), model.class_names);

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

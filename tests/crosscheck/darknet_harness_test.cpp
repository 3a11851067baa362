// The reference harness on its own: before libdarknet can judge fpgacnn, it must reproduce the
// reference listing of shared/models/yolo-lite-voc/SOURCE.md.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "crosscheck_models.hpp"
#include "darknet_reference.hpp"
#include "image_bridge.hpp"
#include "source_listing.hpp"
#include "stb_image_loader.hpp"
#include "test_paths.hpp"

namespace fpgacnn::crosscheck {
namespace {

class DarknetHarness : public testing::Test {
protected:
    void SetUp() override {
        FPGACNN_REQUIRE_SHARED_MODELS();
        spec_ = yolo_lite_voc();
        names_ = load_class_names(spec_.names_path);
        darknet_ = std::make_unique<DarknetReference>(spec_.cfg_path, spec_.weights_path);
    }

    static double sum(const std::vector<float>& values, bool absolute) {
        double total = 0;
        for (float v : values) total += absolute ? std::fabs(v) : v;
        return total;
    }

    ModelSpec spec_;
    std::vector<std::string> names_;
    std::unique_ptr<DarknetReference> darknet_;
};

// With the listing's own decoder the harness must reproduce it to the printed digits: that proves
// the harness drives darknet (letterbox, predict, boxes, NMS, print order) the way `detector test` does.
TEST_F(DarknetHarness, ReproducesSourceListingWithStbDecoding) {
    if (!stb_image_available()) GTEST_SKIP() << "stb_image not found (Debian package libstb-dev)";
    for (const ListedImage& listed : yolo_lite_voc_listing()) {
        SCOPED_TRACE(listed.image);
        const Image image = load_image_stb(test::darknet_file(std::string("data/") + listed.image));
        ASSERT_EQ(image.w, listed.image_w);
        ASSERT_EQ(image.h, listed.image_h);
        const auto rows = rows_of(darknet_->detect(to_reference_image(image), 0.25f), names_);
        EXPECT_EQ(mismatches(rows, rows_of(listed), kStbDecodedTolerance, "SOURCE.md"), "");

        const std::vector<float> region = darknet_->layer_output(darknet_->layer_count() - 1);
        EXPECT_EQ(region.size(), 6125u);
        EXPECT_NEAR(sum(region, false), listed.region_sum, 1e-3);
        EXPECT_NEAR(sum(region, true), listed.region_abssum, 1e-3);
    }
}

// Debian's libdarknet decodes with OpenCV: the same detections, within the decoder's difference.
TEST_F(DarknetHarness, MatchesSourceListingWithOpenCvDecoding) {
    for (const ListedImage& listed : yolo_lite_voc_listing()) {
        SCOPED_TRACE(listed.image);
        const auto rows =
            rows_of(darknet_->detect(test::darknet_file(std::string("data/") + listed.image), 0.25f), names_);
        EXPECT_EQ(mismatches(rows, rows_of(listed), kOpenCvDecodedTolerance, "SOURCE.md"), "");
        const RowsDiff diff = max_differences(rows, rows_of(listed));
        std::cout << "[ measured ] libdarknet on " << listed.image << " vs SOURCE.md: max |prob diff| "
                  << diff.prob << ", max |box diff| " << diff.box << ", max edge diff " << diff.pixels
                  << " px\n";
    }
}

TEST(DarknetHarnessLoading, InputSizeOverrideResizesEveryLayer) {
    const DarknetReference native(test::darknet_file("cfg/yolov2-tiny.cfg"), "");
    const DarknetReference resized(test::darknet_file("cfg/yolov2-tiny.cfg"), "", 608, 320);
    EXPECT_EQ(native.input_width(), 416);
    EXPECT_EQ(resized.input_width(), 608);
    EXPECT_EQ(resized.input_height(), 320);
    const ReferenceLayerInfo region = resized.layer_info(resized.layer_count() - 1);
    EXPECT_EQ(region.type, "region");
    EXPECT_EQ(region.out_w, 19);
    EXPECT_EQ(region.out_h, 10);
    EXPECT_EQ(region.outputs, 19u * 10u * 425u);
}

TEST(DarknetHarnessLoading, MissingFilesThrowInsteadOfExiting) {
    EXPECT_THROW(DarknetReference("/nonexistent.cfg", ""), std::runtime_error);
    EXPECT_THROW(DarknetReference(test::darknet_file("cfg/yolov2-tiny.cfg"), "/nonexistent.weights"),
                 std::runtime_error);
    EXPECT_THROW(darknet_load_image_color("/nonexistent.jpg"), std::runtime_error);
}

}  // namespace
}  // namespace fpgacnn::crosscheck

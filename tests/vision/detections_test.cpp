#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "test_paths.hpp"

namespace fpgacnn {
namespace {

RegionBox make_box(Box b, std::vector<float> prob) {
    RegionBox box;
    box.bbox = b;
    box.objectness = 1.0f;
    box.prob = std::move(prob);
    return box;
}

TEST(CollectDetections, TruncatesPixelsLikeDarknet) {
    const std::vector<RegionBox> boxes = {make_box(Box{0.5f, 0.4f, 0.123f, 0.2f}, {0.0f, 0.9f})};
    const std::vector<Detection> found = collect_detections(boxes, 0.5f, 100, 50, {"cat", "dog"});
    ASSERT_EQ(found.size(), 1u);
    const Detection& d = found[0];
    EXPECT_EQ(d.class_id, 1);
    EXPECT_EQ(d.class_name, "dog");
    EXPECT_FLOAT_EQ(d.prob, 0.9f);
    EXPECT_EQ(d.left, 43);    // (0.5 - 0.0615) * 100 = 43.85
    EXPECT_EQ(d.right, 56);   // 56.15
    EXPECT_EQ(d.top, 15);     // (0.4f - 0.2f/2.) * 50 = 15.0000002
    EXPECT_EQ(d.bottom, 25);  // 25.0000004
    EXPECT_FLOAT_EQ(d.box.x, 0.5f);
}

TEST(CollectDetections, ClampsToTheImage) {
    const std::vector<RegionBox> boxes = {
        make_box(Box{0.0625f, 0.875f, 0.25f, 0.5f}, {0.8f}),
        make_box(Box{-2.0f, 5.0f, 0.1f, 0.1f}, {0.8f}),  // wholly outside
    };
    const std::vector<Detection> found = collect_detections(boxes, 0.5f, 100, 80, {"thing"});
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].left, 0);     // -6.25
    EXPECT_EQ(found[0].right, 18);   // 18.75
    EXPECT_EQ(found[0].top, 50);     // 50
    EXPECT_EQ(found[0].bottom, 79);  // 90
    EXPECT_EQ(found[1].left, 0);
    EXPECT_EQ(found[1].right, 0);
    EXPECT_EQ(found[1].top, 79);
    EXPECT_EQ(found[1].bottom, 79);
}

TEST(CollectDetections, ReportsEveryClassAboveThresholdInBoxThenClassOrder) {
    const std::vector<RegionBox> boxes = {
        make_box(Box{0.5f, 0.5f, 0.2f, 0.2f}, {0.6f, 0.0f, 0.7f}),
        make_box(Box{0.2f, 0.2f, 0.2f, 0.2f}, {0.0f, 0.3f, 0.0f}),
        make_box(Box{0.8f, 0.8f, 0.2f, 0.2f}, {0.9f, 0.5f, 0.0f}),
    };
    const std::vector<Detection> found = collect_detections(boxes, 0.5f, 10, 10, {"a", "b"});
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].class_name, "a");
    EXPECT_EQ(found[1].class_name, "class_2");  // names too short
    EXPECT_EQ(found[2].class_name, "a");        // 0.5 is not above 0.5
    EXPECT_TRUE(collect_detections(boxes, 0.95f, 10, 10, {}).empty());
}

TEST(LoadClassNames, StripsLineEndingsAndTrailingBlankLines) {
    const std::string path = test::scratch_dir("vision_names") + "/test.names";
    {
        std::ofstream out(path, std::ios::binary);
        out << "person\r\ntraffic light  \nbicycle\t\n\nbird\n\n\r\n";
    }
    const std::vector<std::string> names = load_class_names(path);
    EXPECT_EQ(names, (std::vector<std::string>{"person", "traffic light", "bicycle", "", "bird"}));
}

TEST(LoadClassNames, ReadsDarknetsCocoNames) {
    const std::vector<std::string> names = load_class_names(test::darknet_file("data/coco.names"));
    ASSERT_EQ(names.size(), 80u);
    EXPECT_EQ(names.front(), "person");
    EXPECT_EQ(names.back(), "toothbrush");
}

TEST(LoadClassNames, MissingFileNamesThePath) {
    const std::string path = test::scratch_dir("vision_names_missing") + "/absent.names";
    try {
        load_class_names(path);
        FAIL() << "no error thrown";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace fpgacnn

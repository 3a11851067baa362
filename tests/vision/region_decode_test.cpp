// decode_region on a hand-built activated buffer: 1 anchor, 2x2 grid, 2 classes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {
namespace {

RegionParams tiny_region() {
    RegionParams region;
    region.classes = 2;
    region.coords = 4;
    region.num = 1;
    region.anchors = {1.0f, 2.0f};
    return region;
}

// Planes of entries x, y, tw, th, objectness, class0, class1; cells in row-major order.
std::vector<float> tiny_activations() {
    return {
        0.5f, 0.25f,          0.5f,           0.5f,  // x
        0.5f, 0.75f,          0.5f,           0.5f,  // y
        0.0f, std::log(2.0f), 0.0f,           0.0f,  // tw
        0.0f, 0.0f,           std::log(0.5f), 0.0f,  // th
        0.9f, 0.3f,           0.6f,           0.5f,  // objectness
        0.8f, 0.9f,           0.5f,           0.9f,  // class 0
        0.2f, 0.1f,           0.9f,           0.1f,  // class 1
    };
}

const TensorShape kTinyShape{7, 2, 2};

void expect_box(const Box& b, float x, float y, float w, float h) {
    EXPECT_NEAR(b.x, x, 1e-6);
    EXPECT_NEAR(b.y, y, 1e-6);
    EXPECT_NEAR(b.w, w, 1e-6);
    EXPECT_NEAR(b.h, h, 1e-6);
}

TEST(DecodeRegion, HandComputedBoxesWithoutLetterbox) {
    const std::vector<float> act = tiny_activations();
    const std::vector<RegionBox> boxes =
        decode_region(tiny_region(), kTinyShape, act.data(), 64, 64, 64, 64, 0.5f);
    ASSERT_EQ(boxes.size(), 4u);

    // cell 0 (row 0, col 0): x = (0+.5)/2, w = e^0 * 1 / 2, h = e^0 * 2 / 2
    expect_box(boxes[0].bbox, 0.25f, 0.25f, 0.5f, 1.0f);
    EXPECT_FLOAT_EQ(boxes[0].objectness, 0.9f);
    EXPECT_FLOAT_EQ(boxes[0].prob[0], 0.9f * 0.8f);
    EXPECT_EQ(boxes[0].prob[1], 0.0f);  // 0.9*0.2 = 0.18 is not above 0.5

    // cell 1 (row 0, col 1): objectness 0.3 is below the threshold, so no class probabilities.
    expect_box(boxes[1].bbox, 0.625f, 0.375f, 1.0f, 1.0f);
    EXPECT_EQ(boxes[1].objectness, 0.0f);
    EXPECT_EQ(boxes[1].prob, (std::vector<float>{0, 0}));

    // cell 2 (row 1, col 0): h = 0.5 * 2 / 2
    expect_box(boxes[2].bbox, 0.25f, 0.75f, 0.5f, 0.5f);
    EXPECT_FLOAT_EQ(boxes[2].objectness, 0.6f);
    EXPECT_EQ(boxes[2].prob[0], 0.0f);  // 0.3
    EXPECT_FLOAT_EQ(boxes[2].prob[1], 0.6f * 0.9f);

    // cell 3: objectness exactly at the threshold is dropped (darknet uses '>').
    expect_box(boxes[3].bbox, 0.75f, 0.75f, 0.5f, 1.0f);
    EXPECT_EQ(boxes[3].objectness, 0.0f);
}

TEST(DecodeRegion, UndoesTheLetterbox) {
    // A 128x64 image letterboxed into 64x64 fills 64x32 at y offset 16: y' = (y - 0.25) / 0.5, h' = 2h.
    const std::vector<float> act = tiny_activations();
    const std::vector<RegionBox> boxes =
        decode_region(tiny_region(), kTinyShape, act.data(), 128, 64, 64, 64, 0.5f);
    expect_box(boxes[0].bbox, 0.25f, 0.0f, 0.5f, 2.0f);
    expect_box(boxes[2].bbox, 0.25f, 1.0f, 0.5f, 1.0f);
}

TEST(DecodeRegion, OrdersBoxesAnchorMajor) {
    RegionParams region = tiny_region();
    region.num = 2;
    region.anchors = {1.0f, 1.0f, 3.0f, 3.0f};
    std::vector<float> act = tiny_activations();
    std::vector<float> second = tiny_activations();
    act.insert(act.end(), second.begin(), second.end());
    const std::vector<RegionBox> boxes =
        decode_region(region, TensorShape{14, 2, 2}, act.data(), 64, 64, 64, 64, 0.5f);
    ASSERT_EQ(boxes.size(), 8u);
    EXPECT_NEAR(boxes[0].bbox.w, 0.5f, 1e-6);  // anchor 0, cell 0
    EXPECT_NEAR(boxes[4].bbox.w, 1.5f, 1e-6);  // anchor 1, cell 0 (index n*w*h + i)
}

TEST(DecodeRegion, RejectsInconsistentShapes) {
    const std::vector<float> act = tiny_activations();
    EXPECT_THROW(decode_region(tiny_region(), TensorShape{8, 2, 2}, act.data(), 64, 64, 64, 64, 0.5f), Error);
    RegionParams bad_anchors = tiny_region();
    bad_anchors.anchors = {1.0f};
    EXPECT_THROW(decode_region(bad_anchors, kTinyShape, act.data(), 64, 64, 64, 64, 0.5f), Error);
    EXPECT_THROW(decode_region(tiny_region(), kTinyShape, nullptr, 64, 64, 64, 64, 0.5f), Error);
    EXPECT_THROW(decode_region(tiny_region(), kTinyShape, act.data(), 0, 64, 64, 64, 0.5f), Error);
}

}  // namespace
}  // namespace fpgacnn

#include <gtest/gtest.h>

#include <vector>

#include "fpgacnn/vision.hpp"

namespace fpgacnn {
namespace {

RegionBox make_box(float x, float y, float w, float h, float objectness, std::vector<float> prob) {
    RegionBox box;
    box.bbox = Box{x, y, w, h};
    box.objectness = objectness;
    box.prob = std::move(prob);
    return box;
}

TEST(BoxIou, MatchesHandValues) {
    const Box a{0.5f, 0.5f, 1.0f, 1.0f};
    EXPECT_FLOAT_EQ(box_iou(a, a), 1.0f);
    EXPECT_FLOAT_EQ(box_iou(a, Box{1.0f, 0.5f, 1.0f, 1.0f}), 0.5f / 1.5f);
    EXPECT_EQ(box_iou(a, Box{3.0f, 3.0f, 1.0f, 1.0f}), 0.0f);
    EXPECT_EQ(box_iou(Box{}, Box{}), 0.0f);  // darknet: 0/0; never above a threshold either way
}

TEST(NmsSort, SuppressesOverlapsOfTheSameClassOnly) {
    std::vector<RegionBox> boxes = {
        make_box(0.50f, 0.5f, 0.4f, 0.4f, 0.9f, {0.8f, 0.0f}),  // weaker duplicate of the next
        make_box(0.52f, 0.5f, 0.4f, 0.4f, 0.9f, {0.9f, 0.0f}),
        make_box(0.51f, 0.5f, 0.4f, 0.4f, 0.9f, {0.0f, 0.7f}),  // same place, other class
        make_box(0.10f, 0.1f, 0.1f, 0.1f, 0.9f, {0.6f, 0.0f}),  // same class, elsewhere
    };
    nms_sort(boxes, 2, 0.45f);
    std::vector<float> kept_class0;
    std::vector<float> kept_class1;
    for (const RegionBox& b : boxes) {
        if (b.prob[0] > 0) kept_class0.push_back(b.prob[0]);
        if (b.prob[1] > 0) kept_class1.push_back(b.prob[1]);
    }
    EXPECT_EQ(kept_class0, (std::vector<float>{0.9f, 0.6f}));
    EXPECT_EQ(kept_class1, (std::vector<float>{0.7f}));
}

TEST(NmsSort, MovesZeroObjectnessBoxesToTheEndAsDarknetSwaps) {
    std::vector<RegionBox> boxes = {
        make_box(0.1f, 0.1f, 0.1f, 0.1f, 0.0f, {0.0f}),  // a
        make_box(0.3f, 0.3f, 0.1f, 0.1f, 0.9f, {0.5f}),  // b
        make_box(0.5f, 0.5f, 0.1f, 0.1f, 0.0f, {0.0f}),  // c
        make_box(0.7f, 0.7f, 0.1f, 0.1f, 0.8f, {0.6f}),  // d
    };
    nms_sort(boxes, 1, 0.45f);
    // Swaps: a<->d gives d b c a, range [0,2]; c<->c at 2 shrinks to [0,1]; then sorted by prob: d, b.
    EXPECT_FLOAT_EQ(boxes[0].bbox.x, 0.7f);
    EXPECT_FLOAT_EQ(boxes[1].bbox.x, 0.3f);
    EXPECT_FLOAT_EQ(boxes[2].bbox.x, 0.5f);
    EXPECT_FLOAT_EQ(boxes[3].bbox.x, 0.1f);
}

TEST(NmsSort, FinalOrderIsTheLastClassSortWithStableTies) {
    // Three separate boxes. Class 0 sort: b2 (.8), b0 (.6), b1 (0). Class 1 sort: b1 (.7), then the
    // tied zeros keep their class-0 order (glibc's qsort is a stable merge sort): b2, b0.
    std::vector<RegionBox> boxes = {
        make_box(0.1f, 0.1f, 0.1f, 0.1f, 0.9f, {0.6f, 0.0f}),
        make_box(0.5f, 0.5f, 0.1f, 0.1f, 0.9f, {0.0f, 0.7f}),
        make_box(0.9f, 0.9f, 0.1f, 0.1f, 0.9f, {0.8f, 0.0f}),
    };
    nms_sort(boxes, 2, 0.45f);
    EXPECT_FLOAT_EQ(boxes[0].bbox.x, 0.5f);
    EXPECT_FLOAT_EQ(boxes[1].bbox.x, 0.9f);
    EXPECT_FLOAT_EQ(boxes[2].bbox.x, 0.1f);

    const std::vector<Detection> found = collect_detections(boxes, 0.25f, 100, 100, {"a", "b"});
    ASSERT_EQ(found.size(), 3u);
    EXPECT_EQ(found[0].class_name, "b");
    EXPECT_FLOAT_EQ(found[1].prob, 0.8f);
    EXPECT_FLOAT_EQ(found[2].prob, 0.6f);
}

TEST(NmsSort, HandlesNoBoxes) {
    std::vector<RegionBox> none;
    nms_sort(none, 3, 0.45f);
    EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace fpgacnn

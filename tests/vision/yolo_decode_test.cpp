// decode_yolo and decode_network_output on a hand-built activated buffer: 2 mask entries, 2x1 grid,
// 1 class; anchors in network pixels.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {
namespace {

YoloParams two_anchor_head() {
    YoloParams yolo;
    yolo.classes = 1;
    yolo.total = 3;
    yolo.mask = {2, 0};  // this head predicts anchors 2 and 0
    yolo.anchors = {8, 16, 1, 1, 32, 64};
    return yolo;
}

// Per mask entry: planes x, y, tw, th, objectness, class 0; cells (0,0) and (1,0).
std::vector<float> head_activations() {
    return {
        0.5f, 0.25f, 0.5f, 0.5f, 0.0f, std::log(2.0f), 0.0f, 0.0f, 0.9f, 0.2f, 0.5f, 0.5f,  // mask entry 0
        0.5f, 0.5f,  0.5f, 0.5f, 0.0f, 0.0f,           0.0f, 0.0f, 0.3f, 0.8f, 1.0f, 1.0f,  // mask entry 1
    };
}

TEST(DecodeYolo, KeepsBoxesAboveThresholdCellByCellWithMaskedAnchors) {
    const std::vector<float> act = head_activations();
    // Network 64x64, image 64x64 (no letterbox), thresh 0.25: cell 0 entry 0 (0.9), cell 0 entry 1
    // (0.3), cell 1 entry 1 (0.8); cell 1 entry 0 (0.2) is dropped.
    const std::vector<RegionBox> boxes =
        decode_yolo(two_anchor_head(), {12, 1, 2}, act.data(), 64, 64, 64, 64, 0.25f);
    ASSERT_EQ(boxes.size(), 3u);
    EXPECT_FLOAT_EQ(boxes[0].bbox.x, 0.25f);  // (col 0 + 0.5) / 2
    EXPECT_FLOAT_EQ(boxes[0].bbox.w, 0.5f);   // exp(0) * anchor 2's 32 / 64
    EXPECT_FLOAT_EQ(boxes[0].bbox.h, 1.0f);   // 64 / 64
    EXPECT_FLOAT_EQ(boxes[0].prob[0], 0.45f);
    EXPECT_FLOAT_EQ(boxes[1].bbox.w, 8.0f / 64);  // anchor 0
    EXPECT_FLOAT_EQ(boxes[1].prob[0], 0.3f);
    EXPECT_FLOAT_EQ(boxes[2].bbox.x, 0.75f);  // (col 1 + 0.5) / 2
    EXPECT_FLOAT_EQ(boxes[2].bbox.w, 8.0f / 64);
    // objectness 0.9 * class 0.5 = 0.45 > 0.25 kept; a probability at or below thresh becomes 0.
    const std::vector<RegionBox> strict =
        decode_yolo(two_anchor_head(), {12, 1, 2}, act.data(), 64, 64, 64, 64, 0.5f);
    ASSERT_EQ(strict.size(), 2u);
    EXPECT_EQ(strict[0].prob[0], 0.0f);
    EXPECT_FLOAT_EQ(strict[1].prob[0], 0.8f);
}

TEST(DecodeYolo, RejectsInconsistentHeads) {
    const std::vector<float> act = head_activations();
    EXPECT_THROW(decode_yolo(two_anchor_head(), {11, 1, 2}, act.data(), 64, 64, 64, 64, 0.25f), Error);
    YoloParams bad = two_anchor_head();
    bad.mask = {3, 0};
    EXPECT_THROW(decode_yolo(bad, {12, 1, 2}, act.data(), 64, 64, 64, 64, 0.25f), Error);
    EXPECT_THROW(decode_yolo(two_anchor_head(), {12, 1, 2}, nullptr, 64, 64, 64, 64, 0.25f), Error);
}

TEST(DecodeNetworkOutput, HeadsInLayerOrderFromOneBuffer) {
    Network network;
    network.cfg_path = "two-heads.cfg";
    network.input = {3, 64, 64};
    for (int i = 0; i < 2; ++i) {
        Layer head;
        head.type = LayerType::Yolo;
        head.index = i;
        head.input = head.output = {12, 1, 2};
        head.params = two_anchor_head();
        network.layers.push_back(head);
    }
    std::vector<float> output = head_activations();
    std::vector<float> second = head_activations();
    second[8] = 0.1f;  // the second head's cell 0, entry 0 drops below thresh
    output.insert(output.end(), second.begin(), second.end());
    EXPECT_EQ(decode_network_output(network, output, 64, 64, 0.25f).size(), 5u);
    output.pop_back();
    EXPECT_THROW(decode_network_output(network, output, 64, 64, 0.25f), Error);
}

}  // namespace
}  // namespace fpgacnn

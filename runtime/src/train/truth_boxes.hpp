// The truth boxes the detection losses ([region], [yolo]) read: darknet's net->truth layout, a fixed
// number of boxes per image, each x, y, w, h (relative, centre) and the class.
#pragma once

#include "fpgacnn/network.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn::train {

/// Truth boxes an image holds (darknet's [yolo] net->truths: 90), each kTruthFloats floats; a box with
/// x == 0 ends an image's list.
constexpr int kMaxTruthBoxes = 90;
constexpr int kTruthFloats = 5;
/// The boxes forward_region_layer reads an image (its loops stop at 30; its net->truths is 30 boxes).
constexpr int kRegionTruthBoxes = 30;

/// The box of one truth entry (darknet's float_to_box).
inline Box truth_box(const float* entry) { return Box{entry[0], entry[1], entry[2], entry[3]}; }

/// The boxes of one image's list (`truths`, kMaxTruthBoxes entries) before its end, at most `limit`.
/// Throws Error naming `layer`, the image and the box for a box outside the image or a class not in
/// 0..classes-1 (darknet would index outside its arrays).
int count_truth_boxes(const Layer& layer, int classes, const float* truths, int image, int limit);

}  // namespace fpgacnn::train

// darknet's do_nms_sort. The order of `boxes` afterwards is part of the contract: darknet prints
// (and collect_detections reports) detections in array order, and darknet's per-class sort reorders
// the whole array each time, so the final order is the one left by the last class's sort.
#include <algorithm>
#include <cstddef>
#include <utility>

#include "fpgacnn/vision.hpp"

namespace fpgacnn {

namespace {

// darknet swaps every zero-objectness box with the current last candidate and shrinks the range,
// which permutes the array in a specific way; reproduced swap for swap. Returns the candidate count.
std::size_t move_empty_boxes_to_end(std::vector<RegionBox>& boxes) {
    std::ptrdiff_t last = static_cast<std::ptrdiff_t>(boxes.size()) - 1;
    for (std::ptrdiff_t i = 0; i <= last; ++i) {
        if (boxes[i].objectness == 0) {
            std::swap(boxes[i], boxes[last]);
            --last;
            --i;
        }
    }
    return static_cast<std::size_t>(last + 1);
}

}  // namespace

void nms_sort(std::vector<RegionBox>& boxes, int classes, float iou_threshold) {
    const std::size_t total = move_empty_boxes_to_end(boxes);
    const auto candidates_end = boxes.begin() + static_cast<std::ptrdiff_t>(total);

    for (int k = 0; k < classes; ++k) {
        // darknet sorts with qsort(nms_comparator). glibc's qsort is a merge sort, i.e. stable, and
        // most probabilities of a class are tied at 0, so the order of ties decides the final array
        // order: std::stable_sort with the same "higher probability first" relation reproduces it.
        std::stable_sort(boxes.begin(), candidates_end, [k](const RegionBox& a, const RegionBox& b) {
            return a.prob[k] - b.prob[k] > 0;  // nms_comparator: diff > 0 puts a first
        });
        for (std::size_t i = 0; i < total; ++i) {
            if (boxes[i].prob[k] == 0) continue;
            const Box& a = boxes[i].bbox;
            for (std::size_t j = i + 1; j < total; ++j) {
                if (box_iou(a, boxes[j].bbox) > iou_threshold) boxes[j].prob[k] = 0;
            }
        }
    }
}

}  // namespace fpgacnn

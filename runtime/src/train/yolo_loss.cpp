#include "train/yolo_loss.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "fpgacnn/vision.hpp"
#include "train/delta_cost.hpp"
#include "train/head_index.hpp"

namespace fpgacnn::train {

namespace {

/// The [yolo] layer's geometry: the grid, and the anchors in network-input pixels.
struct YoloHead {
    const YoloParams& yolo;
    int lw = 0;  // grid
    int lh = 0;
    int net_w = 0;  // network input, the anchors' unit
    int net_h = 0;
    std::size_t plane() const { return static_cast<std::size_t>(lw) * lh; }

    /// get_yolo_box with anchor `anchor` (of all `num`): x, y in the cell, w, h as exp() times it.
    Box box(const float* x, int anchor, std::size_t index, int i, int j) const {
        const std::size_t stride = plane();
        Box b;
        b.x = (static_cast<float>(i) + x[index]) / static_cast<float>(lw);
        b.y = (static_cast<float>(j) + x[index + stride]) / static_cast<float>(lh);
        // exp() in double, as darknet's C calls it, the anchor and the division with it.
        b.w = static_cast<float>(std::exp(static_cast<double>(x[index + 2 * stride])) *
                                 yolo.anchors[2 * anchor] / net_w);
        b.h = static_cast<float>(std::exp(static_cast<double>(x[index + 3 * stride])) *
                                 yolo.anchors[2 * anchor + 1] / net_h);
        return b;
    }

    /// delta_yolo_box: scale * (target - prediction) for tx, ty (on the logistic's output) and tw, th.
    void box_delta(const Box& truth, const float* x, int anchor, std::size_t index, int i, int j, float scale,
                   float* delta) const {
        const std::size_t stride = plane();
        const float tx = truth.x * static_cast<float>(lw) - static_cast<float>(i);
        const float ty = truth.y * static_cast<float>(lh) - static_cast<float>(j);
        const auto tw = static_cast<float>(
            std::log(static_cast<double>(truth.w * static_cast<float>(net_w) / yolo.anchors[2 * anchor])));
        const auto th = static_cast<float>(std::log(
            static_cast<double>(truth.h * static_cast<float>(net_h) / yolo.anchors[2 * anchor + 1])));
        delta[index] = scale * (tx - x[index]);
        delta[index + stride] = scale * (ty - x[index + stride]);
        delta[index + 2 * stride] = scale * (tw - x[index + 2 * stride]);
        delta[index + 3 * stride] = scale * (th - x[index + 3 * stride]);
    }

    /// delta_yolo_class: when the cell's class-0 delta is already set (another truth got there first),
    /// only this truth's class is set to 1 - output; otherwise every class towards one-hot. darknet
    /// tests class 0's entry, not this truth's class's.
    void class_delta(const float* output, std::size_t index, int cls, float* delta) const {
        const std::size_t stride = plane();
        if (delta[index] != 0) {
            delta[index + stride * cls] = 1 - output[index + stride * cls];
            return;
        }
        for (int c = 0; c < yolo.classes; ++c)
            delta[index + stride * c] = (c == cls ? 1.0f : 0.0f) - output[index + stride * c];
    }
};

/// The anchor (of all `num`) whose shape overlaps the truth's most, both centred at 0; the first on ties.
int best_anchor(const YoloHead& head, const Box& truth) {
    Box shifted = truth;
    shifted.x = 0;
    shifted.y = 0;
    float best_iou = 0;
    int best = 0;
    for (int n = 0; n < head.yolo.total; ++n) {
        Box anchor;
        anchor.w = head.yolo.anchors[2 * n] / static_cast<float>(head.net_w);
        anchor.h = head.yolo.anchors[2 * n + 1] / static_cast<float>(head.net_h);
        const float iou = box_iou(anchor, shifted);
        if (iou > best_iou) {
            best_iou = iou;
            best = n;
        }
    }
    return best;
}

}  // namespace

float yolo_loss(const Layer& layer, const YoloLossOptions& options, const TensorShape& network_input,
                int batch, const float* output, const float* truth, float* delta) {
    const YoloParams& yolo = layer.yolo();
    const YoloHead head{yolo, layer.output.w, layer.output.h, network_input.w, network_input.h};
    const HeadIndex index = head_index(layer);
    const int lw = head.lw;
    const int lh = head.lh;
    const int heads = static_cast<int>(yolo.mask.size());
    std::fill(delta, delta + layer.output.size() * batch, 0.0f);
    for (int b = 0; b < batch; ++b) {
        const float* truths = truth + static_cast<std::size_t>(b) * kMaxTruthBoxes * kTruthFloats;
        const int truth_count = count_truth_boxes(layer, yolo.classes, truths, b, options.max_boxes);
        for (int j = 0; j < lh; ++j) {
            for (int i = 0; i < lw; ++i) {
                for (int n = 0; n < heads; ++n) {
                    const int cell = j * lw + i;
                    const std::size_t box_index = index.at(b, n, cell, 0);
                    const Box pred = head.box(output, yolo.mask[n], box_index, i, j);
                    float best_iou = 0;
                    int best_t = 0;
                    for (int t = 0; t < truth_count; ++t) {
                        const float iou = box_iou(pred, truth_box(truths + t * kTruthFloats));
                        if (iou > best_iou) {
                            best_iou = iou;
                            best_t = t;
                        }
                    }
                    const std::size_t obj_index = index.at(b, n, cell, 4);
                    delta[obj_index] = 0 - output[obj_index];
                    if (best_iou > options.ignore_thresh) delta[obj_index] = 0;
                    if (best_iou > options.truth_thresh) {
                        const float* entry = truths + best_t * kTruthFloats;
                        delta[obj_index] = 1 - output[obj_index];
                        head.class_delta(output, index.at(b, n, cell, 5), static_cast<int>(entry[4]), delta);
                        const Box box = truth_box(entry);
                        head.box_delta(box, output, yolo.mask[n], box_index, i, j, 2 - box.w * box.h, delta);
                    }
                }
            }
        }
        for (int t = 0; t < truth_count; ++t) {
            const float* entry = truths + t * kTruthFloats;
            const Box box = truth_box(entry);
            const int anchor = best_anchor(head, box);
            const auto in_mask = std::find(yolo.mask.begin(), yolo.mask.end(), anchor);
            if (in_mask == yolo.mask.end()) continue;  // another head's anchor
            const auto n = static_cast<int>(in_mask - yolo.mask.begin());
            const int i = static_cast<int>(box.x * static_cast<float>(lw));
            const int j = static_cast<int>(box.y * static_cast<float>(lh));
            const int cell = j * lw + i;
            head.box_delta(box, output, anchor, index.at(b, n, cell, 0), i, j, 2 - box.w * box.h, delta);
            const std::size_t obj_index = index.at(b, n, cell, 4);
            delta[obj_index] = 1 - output[obj_index];
            head.class_delta(output, index.at(b, n, cell, 5), static_cast<int>(entry[4]), delta);
        }
    }
    return delta_cost(delta, layer.output.size() * batch);
}

void yolo_backward(const Layer& layer, int batch, const float* delta, float* input_delta) {
    for (std::size_t k = 0; k < layer.output.size() * batch; ++k) input_delta[k] += delta[k];
}

}  // namespace fpgacnn::train

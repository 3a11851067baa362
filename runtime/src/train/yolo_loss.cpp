#include "train/yolo_loss.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include "fpgacnn/vision.hpp"
#include "train/delta_cost.hpp"
#include "train/head_index.hpp"
#include "train/iou_loss.hpp"

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

    /// delta_yolo_box's targets for tx, ty (the logistic's output), tw and th.
    std::array<float, 4> box_targets(const Box& truth, int anchor, int i, int j) const {
        return {truth.x * static_cast<float>(lw) - static_cast<float>(i),
                truth.y * static_cast<float>(lh) - static_cast<float>(j),
                static_cast<float>(std::log(
                    static_cast<double>(truth.w * static_cast<float>(net_w) / yolo.anchors[2 * anchor]))),
                static_cast<float>(std::log(static_cast<double>(truth.h * static_cast<float>(net_h) /
                                                                yolo.anchors[2 * anchor + 1])))};
    }

    /// delta_yolo_box: scale * (target - prediction) for tx, ty, tw and th.
    void box_delta(const Box& truth, const float* x, int anchor, std::size_t index, int i, int j, float scale,
                   float* delta) const {
        const std::size_t stride = plane();
        const std::array<float, 4> target = box_targets(truth, anchor, i, j);
        for (int k = 0; k < 4; ++k) delta[index + k * stride] = scale * (target[k] - x[index + k * stride]);
    }

    /// AlexeyAB's delta_yolo_box (accumulating): mse as pjreddie's times iou_normalizer, added; the
    /// IoU losses' dx_box_iou deltas on the box, w and h times exp(tw) (not the anchor factor, and no
    /// 1 / lw or logistic factor on x, y), times iou_normalizer, NaN/inf to 0, clipped to max_delta.
    /// Adds 1 - IoU (1 - GIoU for giou) to `iou_loss_sum`, his reported IoU loss.
    void box_delta_alexeyab(const YoloLossOptions& options, const Box& truth, const float* x, int anchor,
                            std::size_t index, int i, int j, float* delta, float& iou_loss_sum) const {
        const std::size_t stride = plane();
        Box pred = box(x, anchor, index, i, j);
        iou_loss_sum +=
            1 - (options.iou_loss == IouLoss::Giou ? box_giou(pred, truth) : box_iou(pred, truth));
        if (options.iou_loss == IouLoss::Mse) {
            const std::array<float, 4> target = box_targets(truth, anchor, i, j);
            const float scale = 2 - truth.w * truth.h;
            for (int k = 0; k < 4; ++k)
                delta[index + k * stride] +=
                    scale * (target[k] - x[index + k * stride]) * options.iou_normalizer;
            return;
        }
        if (pred.w == 0) pred.w = 1;  // as he does, against a division by 0 in dx_box_iou
        if (pred.h == 0) pred.h = 1;
        const BoxDelta d = iou_box_delta(pred, truth, options.iou_loss);
        const float raw[4] = {d.x, d.y,
                              static_cast<float>(d.w * std::exp(static_cast<double>(x[index + 2 * stride]))),
                              static_cast<float>(d.h * std::exp(static_cast<double>(x[index + 3 * stride])))};
        for (int k = 0; k < 4; ++k) {
            float v = raw[k] * options.iou_normalizer;
            if (!std::isfinite(v)) v = 0;  // fix_nan_inf
            v = std::clamp(v, -options.max_delta, options.max_delta);
            delta[index + k * stride] += v;
        }
    }

    /// AlexeyAB's delta_yolo_class (no focal loss, smoothing or class multipliers): when this truth's
    /// class delta is already set, only it becomes 1 - output; else every class towards one-hot
    /// (a NaN/inf difference left as it was). cls_normalizer is not applied (he applies it only with
    /// class multipliers).
    void class_delta_alexeyab(const float* output, std::size_t index, int cls, float* delta) const {
        const std::size_t stride = plane();
        if (delta[index + stride * cls] != 0) {
            const float d = 1 - output[index + stride * cls];
            if (std::isfinite(d)) delta[index + stride * cls] = d;
            return;
        }
        for (int c = 0; c < yolo.classes; ++c) {
            const float d = (c == cls ? 1.0f : 0.0f) - output[index + stride * c];
            if (std::isfinite(d)) delta[index + stride * c] = d;
        }
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

/// Where a truth is trained: the best of all `num` anchors by shape, its entry `n` in this head's mask
/// (-1: another head's) and the cell (i, j) holding the truth's centre.
struct TruthSlot {
    int anchor = 0;
    int n = -1;
    int i = 0;
    int j = 0;
};

TruthSlot truth_slot(const YoloHead& head, const Box& box) {
    TruthSlot slot;
    slot.anchor = best_anchor(head, box);
    const std::vector<int>& mask = head.yolo.mask;
    const auto in_mask = std::find(mask.begin(), mask.end(), slot.anchor);
    if (in_mask != mask.end()) slot.n = static_cast<int>(in_mask - mask.begin());
    slot.i = static_cast<int>(box.x * static_cast<float>(head.lw));
    slot.j = static_cast<int>(box.y * static_cast<float>(head.lh));
    return slot;
}

/// compare_yolo_class: any class output above 0.25 at the cell (not only the truth's class).
bool any_class_above(const YoloHead& head, const float* output, std::size_t class_index) {
    for (int c = 0; c < head.yolo.classes; ++c) {
        if (output[class_index + head.plane() * c] > 0.25f) return true;
    }
    return false;
}

/// AlexeyAB's forward_yolo_layer (process_batch) without the options refused by the cfg reader; the
/// cost as he reports it with show_details=1.
float yolo_loss_alexeyab(const Layer& layer, const YoloLossOptions& options, const TensorShape& network_input,
                         int batch, const float* output, const float* truth, float* delta) {
    const YoloParams& yolo = layer.yolo();
    const YoloHead head{yolo, layer.output.w, layer.output.h, network_input.w, network_input.h};
    const HeadIndex index = head_index(layer);
    const int lw = head.lw;
    const int lh = head.lh;
    const int heads = static_cast<int>(yolo.mask.size());
    const float obj = options.obj_normalizer;
    float iou_loss_sum = 0;
    int count = 0;
    std::fill(delta, delta + layer.output.size() * batch, 0.0f);
    for (int b = 0; b < batch; ++b) {
        const float* truths = truth + static_cast<std::size_t>(b) * kMaxTruthBoxes * kTruthFloats;
        const int truth_count = count_truth_boxes(layer, yolo.classes, truths, b, options.max_boxes);
        for (int j = 0; j < lh; ++j) {
            for (int i = 0; i < lw; ++i) {
                for (int n = 0; n < heads; ++n) {
                    const int cell = j * lw + i;
                    const std::size_t box_index = index.at(b, n, cell, 0);
                    const std::size_t class_index = index.at(b, n, cell, 5);
                    const Box pred = head.box(output, yolo.mask[n], box_index, i, j);
                    // The ignore rule counts a truth only where some class is above 0.25.
                    const bool class_match = any_class_above(head, output, class_index);
                    float best_match_iou = 0;
                    float best_iou = 0;
                    int best_t = 0;
                    for (int t = 0; t < truth_count; ++t) {
                        const float iou = box_iou(pred, truth_box(truths + t * kTruthFloats));
                        if (iou > best_match_iou && class_match) best_match_iou = iou;
                        if (iou > best_iou) {
                            best_iou = iou;
                            best_t = t;
                        }
                    }
                    const std::size_t obj_index = index.at(b, n, cell, 4);
                    delta[obj_index] = obj * (0 - output[obj_index]);
                    if (best_match_iou > options.ignore_thresh) delta[obj_index] = 0;
                    if (best_iou > options.truth_thresh) {
                        const float* entry = truths + best_t * kTruthFloats;
                        delta[obj_index] = obj * (1 - output[obj_index]);
                        head.class_delta_alexeyab(output, class_index, static_cast<int>(entry[4]), delta);
                        float unreported = 0;  // his statistics count only the truth loop's boxes
                        head.box_delta_alexeyab(options, truth_box(entry), output, yolo.mask[n], box_index, i,
                                                j, delta, unreported);
                    }
                }
            }
        }
        for (int t = 0; t < truth_count; ++t) {
            const float* entry = truths + t * kTruthFloats;
            const Box box = truth_box(entry);
            const TruthSlot slot = truth_slot(head, box);
            if (slot.n < 0) continue;  // another head's anchor
            const int n = slot.n;
            const int cell = slot.j * lw + slot.i;
            head.box_delta_alexeyab(options, box, output, slot.anchor, index.at(b, n, cell, 0), slot.i,
                                    slot.j, delta, iou_loss_sum);
            ++count;
            const std::size_t obj_index = index.at(b, n, cell, 4);
            delta[obj_index] = obj * (1 - output[obj_index]);
            head.class_delta_alexeyab(output, index.at(b, n, cell, 5), static_cast<int>(entry[4]), delta);
        }
    }
    const std::size_t total = layer.output.size() * batch;
    if (options.iou_loss == IouLoss::Mse) return delta_cost(delta, total);
    // The IoU losses: iou_normalizer * the mean 1 - IoU (GIoU) of the truths' boxes, plus obj_normalizer
    // times |delta|^2 over every entry but the boxes'.
    const auto not_box = [&index](std::size_t k) {
        return (k % index.image) / index.plane % index.entries >= 4;
    };
    return options.iou_normalizer * iou_loss_sum / static_cast<float>(std::max(count, 1)) +
           obj * delta_cost_of(delta, total, not_box);
}

}  // namespace

float yolo_loss(const Layer& layer, const YoloLossOptions& options, const TensorShape& network_input,
                int batch, const float* output, const float* truth, float* delta) {
    if (options.alexeyab)
        return yolo_loss_alexeyab(layer, options, network_input, batch, output, truth, delta);
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
            const TruthSlot slot = truth_slot(head, box);
            if (slot.n < 0) continue;  // another head's anchor
            const int n = slot.n;
            const int cell = slot.j * lw + slot.i;
            head.box_delta(box, output, slot.anchor, index.at(b, n, cell, 0), slot.i, slot.j,
                           2 - box.w * box.h, delta);
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

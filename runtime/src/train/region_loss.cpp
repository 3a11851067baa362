#include "train/region_loss.hpp"

#include <cmath>
#include <cstddef>

#include "fpgacnn/vision.hpp"
#include "train/activation_gradient.hpp"
#include "train/delta_cost.hpp"
#include "train/head_index.hpp"

namespace fpgacnn::train {

namespace {

/// get_region_box: x, y offsets in the cell, w, h as exp() times the anchor, all relative.
Box region_box(const float* x, const std::vector<float>& anchors, int n, std::size_t index, int i, int j,
               int w, int h, std::size_t stride) {
    Box box;
    box.x = (static_cast<float>(i) + x[index]) / static_cast<float>(w);
    box.y = (static_cast<float>(j) + x[index + stride]) / static_cast<float>(h);
    box.w = static_cast<float>(std::exp(static_cast<double>(x[index + 2 * stride])) * anchors[2 * n] / w);
    box.h = static_cast<float>(std::exp(static_cast<double>(x[index + 3 * stride])) * anchors[2 * n + 1] / h);
    return box;
}

/// delta_region_box: scale * (target - prediction) for tx, ty (on the logistic's output) and tw, th.
float delta_region_box(const Box& truth, const float* x, const std::vector<float>& anchors, int n,
                       std::size_t index, int i, int j, int w, int h, float* delta, float scale,
                       std::size_t stride) {
    const Box pred = region_box(x, anchors, n, index, i, j, w, h, stride);
    const float iou = box_iou(pred, truth);
    const float tx = truth.x * static_cast<float>(w) - static_cast<float>(i);
    const float ty = truth.y * static_cast<float>(h) - static_cast<float>(j);
    const auto tw =
        static_cast<float>(std::log(static_cast<double>(truth.w * static_cast<float>(w) / anchors[2 * n])));
    const auto th = static_cast<float>(
        std::log(static_cast<double>(truth.h * static_cast<float>(h) / anchors[2 * n + 1])));
    delta[index] = scale * (tx - x[index]);
    delta[index + stride] = scale * (ty - x[index + stride]);
    delta[index + 2 * stride] = scale * (tw - x[index + 2 * stride]);
    delta[index + 3 * stride] = scale * (th - x[index + 3 * stride]);
    return iou;
}

}  // namespace

float region_loss(const Layer& layer, const RegionLossOptions& options, int batch, const float* output,
                  const float* truth, std::uint64_t seen, float* delta) {
    const RegionParams& region = layer.region();
    const int w = layer.output.w;
    const int h = layer.output.h;
    const std::size_t stride = static_cast<std::size_t>(w) * h;
    const HeadIndex index = head_index(layer);
    const std::vector<float>& anchors = region.anchors;
    std::fill(delta, delta + layer.output.size() * batch, 0.0f);
    for (int b = 0; b < batch; ++b) {
        const float* truths = truth + static_cast<std::size_t>(b) * kMaxTruthBoxes * kTruthFloats;
        const int truth_count = count_truth_boxes(layer, region.classes, truths, b, kRegionTruthBoxes);
        for (int j = 0; j < h; ++j) {
            for (int i = 0; i < w; ++i) {
                for (int n = 0; n < region.num; ++n) {
                    const int cell = j * w + i;
                    const std::size_t box_index = index.at(b, n, cell, 0);
                    const Box pred = region_box(output, anchors, n, box_index, i, j, w, h, stride);
                    float best_iou = 0;
                    for (int t = 0; t < truth_count; ++t) {
                        best_iou = std::max(best_iou, box_iou(pred, truth_box(truths + t * kTruthFloats)));
                    }
                    const std::size_t obj_index = index.at(b, n, cell, region.coords);
                    delta[obj_index] =
                        best_iou > options.thresh ? 0.0f : options.noobject_scale * (0 - output[obj_index]);
                    if (seen < 12800) {
                        Box prior;
                        prior.x = static_cast<float>((i + .5) / w);
                        prior.y = static_cast<float>((j + .5) / h);
                        prior.w = anchors[2 * n] / static_cast<float>(w);
                        prior.h = anchors[2 * n + 1] / static_cast<float>(h);
                        delta_region_box(prior, output, anchors, n, box_index, i, j, w, h, delta, .01f,
                                         stride);
                    }
                }
            }
        }
        for (int t = 0; t < truth_count; ++t) {
            const float* entry = truths + t * kTruthFloats;
            const Box box = truth_box(entry);
            const int i = static_cast<int>(box.x * static_cast<float>(w));
            const int j = static_cast<int>(box.y * static_cast<float>(h));
            const int cell = j * w + i;
            Box shifted = box;
            shifted.x = 0;
            shifted.y = 0;
            float best_iou = 0;
            int best_n = 0;
            for (int n = 0; n < region.num; ++n) {
                Box pred = region_box(output, anchors, n, index.at(b, n, cell, 0), i, j, w, h, stride);
                if (options.bias_match) {
                    pred.w = anchors[2 * n] / static_cast<float>(w);
                    pred.h = anchors[2 * n + 1] / static_cast<float>(h);
                }
                pred.x = 0;
                pred.y = 0;
                const float iou = box_iou(pred, shifted);
                if (iou > best_iou) {
                    best_iou = iou;
                    best_n = n;
                }
            }
            const std::size_t box_index = index.at(b, best_n, cell, 0);
            const float iou = delta_region_box(box, output, anchors, best_n, box_index, i, j, w, h, delta,
                                               options.coord_scale * (2 - box.w * box.h), stride);
            const std::size_t obj_index = index.at(b, best_n, cell, region.coords);
            delta[obj_index] = options.object_scale * ((options.rescore ? iou : 1.0f) - output[obj_index]);
            // delta_region_class: with logistic classes (softmax=0) a cell already holding a truth's
            // class delta only gets this truth's class set; otherwise every class is (re)written.
            const int cls = static_cast<int>(entry[4]);
            const std::size_t class_index = index.at(b, best_n, cell, region.coords + 1);
            if (delta[class_index] != 0 && !region.softmax) {
                delta[class_index + stride * cls] =
                    options.class_scale * (1 - output[class_index + stride * cls]);
                continue;
            }
            for (int c = 0; c < region.classes; ++c) {
                delta[class_index + stride * c] =
                    options.class_scale * ((c == cls ? 1.0f : 0.0f) - output[class_index + stride * c]);
            }
        }
    }
    return delta_cost(delta, layer.output.size() * batch);
}

void region_backward(const Layer& layer, int batch, const float* output, float* delta, float* input_delta) {
    const RegionParams& region = layer.region();
    const std::size_t plane = static_cast<std::size_t>(layer.output.w) * layer.output.h;
    const HeadIndex index = head_index(layer);
    for (int b = 0; b < batch; ++b) {
        for (int n = 0; n < region.num; ++n) {
            const std::size_t xy = index.at(b, n, 0, 0);
            apply_activation_gradient(output + xy, 2 * plane, Activation::Logistic, delta + xy);
            const std::size_t objectness = index.at(b, n, 0, region.coords);
            apply_activation_gradient(output + objectness, plane, Activation::Logistic, delta + objectness);
        }
    }
    for (std::size_t k = 0; k < layer.output.size() * batch; ++k) input_delta[k] += delta[k];
}

}  // namespace fpgacnn::train

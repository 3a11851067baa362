// The YOLOv2 [region] loss: darknet's forward_region_layer deltas (training branch) and the GPU
// backward (backward_region_layer_gpu), since pjreddie's CPU backward_region_layer is empty
// (docs/darknet-semantics.md, "Training (float)").
#pragma once

#include <cstdint>

#include "fpgacnn/network.hpp"
#include "train/training_options.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::train {

/// On the layer's ACTIVATED output of `batch` images, darknet's deltas into `delta` (overwritten):
/// no-object (noobject_scale * -objectness, cleared where a prediction overlaps a truth by more than
/// thresh), the anchor-prior warm-up while `seen` < 12800 (scale .01), and for each truth its best
/// anchor's coordinates (coord_scale * (2 - w*h)), objectness (object_scale, with rescore the IoU as
/// target) and classes (class_scale). `seen` counts the images trained on including this batch, as
/// darknet's *net->seen does inside forward_region_layer. Returns darknet's cost (|delta|^2).
/// Throws Error for a truth outside the image or of a class the layer does not have.
float region_loss(const Layer& layer, const RegionLossOptions& options, int batch, const float* output,
                  const float* truth, std::uint64_t seen, float* delta);

/// backward_region_layer_gpu: the logistic's gradient on the x, y and objectness deltas (in place),
/// then delta added to the previous layer's.
void region_backward(const Layer& layer, int batch, const float* output, float* delta, float* input_delta);

}  // namespace fpgacnn::train

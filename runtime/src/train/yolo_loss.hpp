// The YOLOv3 [yolo] loss: pjreddie's forward_yolo_layer deltas (training branch) and
// backward_yolo_layer, which adds the deltas to the previous layer's as they are: unlike the
// [region] layer's GPU backward, no logistic gradient (docs/darknet-semantics.md, "Training (float)").
#pragma once

#include "fpgacnn/network.hpp"
#include "train/training_options.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::train {

/// On the layer's ACTIVATED output of `batch` images (logistic x, y, objectness and classes; raw w,
/// h), darknet's deltas into `delta` (overwritten): each prediction's objectness towards 0 unless it
/// overlaps a truth by more than ignore_thresh (and towards 1, with that truth's class and box, above
/// truth_thresh); then for each truth the best of all `num` anchors by shape alone and, when this
/// head's mask holds it, that anchor's box (scaled by 2 - w*h), objectness (1) and classes.
/// `network_input` is the net's input (anchors are in its pixels). Returns darknet's cost
/// (|delta|^2). Throws Error for a truth outside the image or of a class the layer does not have.
float yolo_loss(const Layer& layer, const YoloLossOptions& options, const TensorShape& network_input,
                int batch, const float* output, const float* truth, float* delta);

/// backward_yolo_layer: delta added to the previous layer's (batch * the layer's size floats).
void yolo_backward(const Layer& layer, int batch, const float* delta, float* input_delta);

}  // namespace fpgacnn::train

// AlexeyAB's IoU-family box losses of the [yolo] layer (his src/box.c): the GIoU, DIoU and CIoU values
// and his dx_box_iou deltas, which are not everywhere the gradients of those values
// (docs/darknet-semantics.md, "AlexeyAB's [yolo] loss").
#pragma once

#include "fpgacnn/vision.hpp"

namespace fpgacnn::train {

/// The cfg's iou_loss (AlexeyAB's parse_yolo: mse, giou, diou, ciou, and iou for every other name).
/// Iou, his plain IoU, is the base of the others here; the cfg reader refuses it.
enum class IouLoss { Mse, Iou, Giou, Diou, Ciou };

/// GIoU (Rezatofighi et al. 2019): IoU - (C - U) / C, C the enclosing box's area (box_giou).
float box_giou(const Box& a, const Box& b);
/// DIoU (Zheng et al. 2020): IoU - rho^2 / c^2, rho the centres' distance, c the enclosing box's
/// diagonal. (AlexeyAB's box_diou raises rho^2 / c^2 to 0.6, but only for his statistics; his delta
/// differentiates this published form.)
float box_diou(const Box& a, const Box& b);
/// The CIoU's aspect-ratio term's weight alpha = v / (1 - IoU + v + 1e-6) (box_ciou's epsilon) and v.
struct CiouAspect {
    float v = 0;
    float alpha = 0;
};
CiouAspect ciou_aspect(const Box& pred, const Box& truth);
/// CIoU: DIoU - alpha * v (box_ciou).
float box_ciou(const Box& a, const Box& b);

/// dx_box_iou's result: the deltas (towards a better box, the loss's negative gradient) on the
/// prediction's x, y, w, h in image-relative units.
struct BoxDelta {
    float x = 0;
    float y = 0;
    float w = 0;
    float h = 0;
};

/// AlexeyAB's dx_box_iou for `kind` (Iou, Giou, Diou or Ciou), term for term: with the boxes
/// overlapping, x and y get the IoU's (and GIoU's) gradient and w and h twice it; DIoU/CIoU add the
/// distance term with the enclosing box's derivative of opposite sign on x, y; CIoU adds alpha (held
/// constant) times the aspect term's derivative without its 1 / (w^2 + h^2). Without overlap only the
/// GIoU or distance term is kept, from an unclamped (negative) intersection.
BoxDelta iou_box_delta(const Box& pred, const Box& truth, IouLoss kind);

}  // namespace fpgacnn::train

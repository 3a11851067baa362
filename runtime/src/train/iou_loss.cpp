#include "train/iou_loss.hpp"

#include <algorithm>
#include <cmath>

namespace fpgacnn::train {

namespace {

/// A box as its edges (darknet's boxabs / to_tblr).
struct Edges {
    float top = 0;
    float bottom = 0;
    float left = 0;
    float right = 0;
};

Edges& operator+=(Edges& sum, const Edges& term) {
    sum.top += term.top;
    sum.bottom += term.bottom;
    sum.left += term.left;
    sum.right += term.right;
    return sum;
}

BoxDelta& operator+=(BoxDelta& sum, const BoxDelta& term) {
    sum.x += term.x;
    sum.y += term.y;
    sum.w += term.w;
    sum.h += term.h;
    return sum;
}

Edges edges_of(const Box& b) { return Edges{b.y - b.h / 2, b.y + b.h / 2, b.x - b.w / 2, b.x + b.w / 2}; }

/// The smallest box holding both (box_c).
Edges enclosing(const Box& a, const Box& b) {
    const Edges ea = edges_of(a);
    const Edges eb = edges_of(b);
    return Edges{std::min(ea.top, eb.top), std::max(ea.bottom, eb.bottom), std::min(ea.left, eb.left),
                 std::max(ea.right, eb.right)};
}

float union_area(const Box& a, const Box& b) {
    const Edges ea = edges_of(a);
    const Edges eb = edges_of(b);
    const float iw = std::min(ea.right, eb.right) - std::max(ea.left, eb.left);
    const float ih = std::min(ea.bottom, eb.bottom) - std::max(ea.top, eb.top);
    const float intersection = iw < 0 || ih < 0 ? 0 : iw * ih;
    return a.w * a.h + b.w * b.h - intersection;
}

float centre_distance2(const Box& a, const Box& b) {
    return (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
}

float diagonal2(const Edges& c) {
    const float w = c.right - c.left;
    const float h = c.bottom - c.top;
    return w * w + h * h;
}

// 4 / pi^2, in double as the C expression computes it.
constexpr double kFourOverPi2 = 4.0 / (3.14159265358979323846 * 3.14159265358979323846);

}  // namespace

float box_giou(const Box& a, const Box& b) {
    const Edges c = enclosing(a, b);
    const float area = (c.right - c.left) * (c.bottom - c.top);
    const float iou = box_iou(a, b);
    if (area == 0) return iou;
    return iou - (area - union_area(a, b)) / area;
}

float box_diou(const Box& a, const Box& b) {
    const float c2 = diagonal2(enclosing(a, b));
    const float iou = box_iou(a, b);
    if (c2 == 0) return iou;
    return iou - centre_distance2(a, b) / c2;
}

CiouAspect ciou_aspect(const Box& pred, const Box& truth) {
    const double angle =
        std::atan(static_cast<double>(truth.w / truth.h)) - std::atan(static_cast<double>(pred.w / pred.h));
    CiouAspect aspect;
    aspect.v = static_cast<float>(kFourOverPi2 * angle * angle);
    aspect.alpha = static_cast<float>(aspect.v / (1 - box_iou(pred, truth) + aspect.v + 0.000001));
    return aspect;
}

float box_ciou(const Box& a, const Box& b) {
    const float c2 = diagonal2(enclosing(a, b));
    const float iou = box_iou(a, b);
    if (c2 == 0) return iou;
    const CiouAspect aspect = ciou_aspect(a, b);
    return iou - (centre_distance2(a, b) / c2 + aspect.alpha * aspect.v);
}

BoxDelta iou_box_delta(const Box& pred, const Box& truth, IouLoss kind) {
    const Edges p = edges_of(pred);  // w, h > 0 here: exp() of the raw outputs
    const Edges t = edges_of(truth);
    const float pred_w = p.right - p.left;
    const float pred_h = p.bottom - p.top;
    const float pred_area = pred_w * pred_h;
    const float truth_area = (t.bottom - t.top) * (t.right - t.left);
    // Not clamped at 0: without overlap one of them is negative and so is the "intersection".
    const float iw = std::min(p.right, t.right) - std::max(p.left, t.left);
    const float ih = std::min(p.bottom, t.bottom) - std::max(p.top, t.top);
    const float inter = iw * ih;
    const float uni = pred_area + truth_area - inter;
    const bool overlap = iw > 0 && ih > 0;

    // d/d(edge) of the prediction's area, of the intersection (the edge counts where it is the
    // intersection's), of the union and of the enclosing area (where the edge is the enclosure's).
    const Edges d_area{-pred_w, pred_w, -pred_h, pred_h};
    const Edges d_inter{p.top > t.top ? -iw : 0, p.bottom < t.bottom ? iw : 0, p.left > t.left ? -ih : 0,
                        p.right < t.right ? ih : 0};
    const Edges d_union{d_area.top - d_inter.top, d_area.bottom - d_inter.bottom, d_area.left - d_inter.left,
                        d_area.right - d_inter.right};
    const float enclosure_w = std::max(p.right, t.right) - std::min(p.left, t.left);
    const float enclosure_h = std::max(p.bottom, t.bottom) - std::min(p.top, t.top);
    const float enclosure = enclosure_w * enclosure_h;
    const Edges d_enclosure{p.top < t.top ? -enclosure_w : 0, p.bottom > t.bottom ? enclosure_w : 0,
                            p.left < t.left ? -enclosure_h : 0, p.right > t.right ? enclosure_h : 0};

    // The IoU's derivative by edge (quotient rule), 0 for an empty union.
    Edges grad;
    if (uni > 0) {
        const float u2 = uni * uni;
        grad.top = (uni * d_inter.top - inter * d_union.top) / u2;
        grad.bottom = (uni * d_inter.bottom - inter * d_union.bottom) / u2;
        grad.left = (uni * d_inter.left - inter * d_union.left) / u2;
        grad.right = (uni * d_inter.right - inter * d_union.right) / u2;
    }
    if (kind == IouLoss::Giou) {
        // + d(U / C): GIoU = IoU - 1 + U / C. Without overlap that term alone (with the unclamped U).
        const float c2 = enclosure * enclosure;
        const auto term = [&](float du, float dc) { return (enclosure * du - uni * dc) / c2; };
        const Edges giou{term(d_union.top, d_enclosure.top), term(d_union.bottom, d_enclosure.bottom),
                         term(d_union.left, d_enclosure.left), term(d_union.right, d_enclosure.right)};
        if (enclosure > 0) grad += giou;
        if (!overlap) grad = giou;
    }
    // Edges to centre and size: x moves both side edges (sum), w their difference, which is twice
    // dIoU/dw (AlexeyAB keeps the factor 2).
    BoxDelta delta{grad.left + grad.right, grad.top + grad.bottom, grad.right - grad.left,
                   grad.bottom - grad.top};
    if (kind != IouLoss::Diou && kind != IouLoss::Ciou) return delta;

    // The distance term rho^2 / c^2 by x, y, w, h: d(c^2) from the enclosure's edges that are the
    // prediction's; rho^2's own derivative is 2 (truth - pred).
    const float c2 = enclosure_w * enclosure_w + enclosure_h * enclosure_h;
    const float rho2 = centre_distance2(pred, truth);
    const float dcw_dx = (p.right > t.right ? 1.0f : 0.0f) - (p.left < t.left ? 1.0f : 0.0f);
    const float dch_dy = (p.bottom > t.bottom ? 1.0f : 0.0f) - (p.top < t.top ? 1.0f : 0.0f);
    const float dcw_dw = (p.right > t.right ? 0.5f : 0.0f) + (p.left < t.left ? 0.5f : 0.0f);
    const float dch_dh = (p.bottom > t.bottom ? 0.5f : 0.0f) + (p.top < t.top ? 0.5f : 0.0f);
    const float c4 = c2 * c2;
    // AlexeyAB subtracts rho^2 * d(c^2) on x and y, where the gradient of -rho^2 / c^2 adds it.
    BoxDelta distance{(2 * (truth.x - pred.x) * c2 - 2 * enclosure_w * dcw_dx * rho2) / c4,
                      (2 * (truth.y - pred.y) * c2 - 2 * enclosure_h * dch_dy * rho2) / c4,
                      2 * enclosure_w * dcw_dw * rho2 / c4, 2 * enclosure_h * dch_dh * rho2 / c4};
    if (kind == IouLoss::Ciou) {
        // alpha is held constant; d v / d w is 8/pi^2 (atan gt - atan pred) h / (w^2 + h^2), of which
        // the CIoU paper drops the 1 / (w^2 + h^2) (its factor is usually large for relative sizes).
        const double angle = std::atan(static_cast<double>(truth.w / truth.h)) -
                             std::atan(static_cast<double>(pred.w / pred.h));
        const auto dv_w = static_cast<float>(2 * kFourOverPi2 * angle * pred.h);
        const auto dv_h = static_cast<float>(-2 * kFourOverPi2 * angle * pred.w);
        // His alpha divides by 1 - I/U with the unclamped I and U of this function.
        const auto aspect_v = static_cast<float>(kFourOverPi2 * angle * angle);
        const auto alpha = static_cast<float>(aspect_v / (1 - inter / uni + aspect_v + 0.000001));
        distance.w += alpha * dv_w;
        distance.h += alpha * dv_h;
    }
    if (c2 > 0) delta += distance;
    if (!overlap) delta = distance;
    return delta;
}

}  // namespace fpgacnn::train

// AlexeyAB's IoU-family box losses (train/iou_loss): the values against a double-precision reference
// written here from the papers' definitions, and his dx_box_iou deltas against central finite
// differences of those definitions, with each of his departures from the gradient pinned
// (docs/darknet-semantics.md, "AlexeyAB's [yolo] loss").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "train/iou_loss.hpp"

namespace fpgacnn::train {
namespace {

struct BoxD {
    double x, y, w, h;
};

double overlap(double c1, double s1, double c2, double s2) {
    return std::min(c1 + s1 / 2, c2 + s2 / 2) - std::max(c1 - s1 / 2, c2 - s2 / 2);
}
double iou_ref(const BoxD& a, const BoxD& b) {
    const double iw = overlap(a.x, a.w, b.x, b.w);
    const double ih = overlap(a.y, a.h, b.y, b.h);
    const double inter = iw > 0 && ih > 0 ? iw * ih : 0;
    return inter / (a.w * a.h + b.w * b.h - inter);
}
// The enclosing box's width and height.
double cw_ref(const BoxD& a, const BoxD& b) {
    return std::max(a.x + a.w / 2, b.x + b.w / 2) - std::min(a.x - a.w / 2, b.x - b.w / 2);
}
double ch_ref(const BoxD& a, const BoxD& b) {
    return std::max(a.y + a.h / 2, b.y + b.h / 2) - std::min(a.y - a.h / 2, b.y - b.h / 2);
}
double giou_ref(const BoxD& a, const BoxD& b) {
    const double iw = overlap(a.x, a.w, b.x, b.w);
    const double ih = overlap(a.y, a.h, b.y, b.h);
    const double inter = iw > 0 && ih > 0 ? iw * ih : 0;
    const double uni = a.w * a.h + b.w * b.h - inter;
    const double c = cw_ref(a, b) * ch_ref(a, b);
    return inter / uni - (c - uni) / c;
}
double c2_ref(const BoxD& a, const BoxD& b) {
    return cw_ref(a, b) * cw_ref(a, b) + ch_ref(a, b) * ch_ref(a, b);
}
double rho2_ref(const BoxD& a, const BoxD& b) {
    return (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y);
}
double distance_ref(const BoxD& a, const BoxD& b) { return rho2_ref(a, b) / c2_ref(a, b); }
double diou_ref(const BoxD& a, const BoxD& b) { return iou_ref(a, b) - distance_ref(a, b); }
double v_ref(const BoxD& pred, const BoxD& truth) {
    const double d = std::atan(truth.w / truth.h) - std::atan(pred.w / pred.h);
    return 4 / (M_PI * M_PI) * d * d;
}
double alpha_ref(const BoxD& pred, const BoxD& truth) {
    const double v = v_ref(pred, truth);
    return v / (1 - iou_ref(pred, truth) + v);
}
double ciou_ref(const BoxD& a, const BoxD& b) { return diou_ref(a, b) - alpha_ref(a, b) * v_ref(a, b); }

BoxD to_double(const Box& b) { return BoxD{b.x, b.y, b.w, b.h}; }

/// Central differences of f in the prediction's x, y, w, h (at float-representable boxes).
struct Gradient {
    double x, y, w, h;
};
Gradient finite_differences(const std::function<double(const BoxD&)>& f, const BoxD& p) {
    constexpr double kStep = 1e-6;
    const auto along = [&](double BoxD::*member) {
        BoxD plus = p;
        BoxD minus = p;
        plus.*member += kStep;
        minus.*member -= kStep;
        return (f(plus) - f(minus)) / (2 * kStep);
    };
    return Gradient{along(&BoxD::x), along(&BoxD::y), along(&BoxD::w), along(&BoxD::h)};
}

/// Overlapping pairs whose edges are apart (no kink of min/max within the differences' step).
struct Pair {
    Box pred;
    Box truth;
};
std::vector<Pair> overlapping_pairs(unsigned seed, int count) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> centre(0.3f, 0.7f);
    std::uniform_real_distribution<float> size(0.1f, 0.5f);
    std::vector<Pair> pairs;
    while (static_cast<int>(pairs.size()) < count) {
        const Box a{centre(random), centre(random), size(random), size(random)};
        const Box b{centre(random), centre(random), size(random), size(random)};
        const BoxD da = to_double(a);
        const BoxD db = to_double(b);
        const double edges[] = {da.x - da.w / 2 - (db.x - db.w / 2), da.x + da.w / 2 - (db.x + db.w / 2),
                                da.y - da.h / 2 - (db.y - db.h / 2), da.y + da.h / 2 - (db.y + db.h / 2)};
        const bool apart =
            std::all_of(std::begin(edges), std::end(edges), [](double e) { return std::abs(e) > 1e-3; });
        if (apart && overlap(da.x, da.w, db.x, db.w) > 1e-3 && overlap(da.y, da.h, db.y, db.h) > 1e-3)
            pairs.push_back({a, b});
    }
    return pairs;
}

constexpr float kTolerance = 2e-3f;  // float deltas against double differences

TEST(IouLoss, ValuesMatchThePublishedDefinitions) {
    std::mt19937 random(11);
    std::uniform_real_distribution<float> centre(0.2f, 0.8f);
    std::uniform_real_distribution<float> size(0.05f, 0.6f);
    for (int k = 0; k < 500; ++k) {  // overlapping and disjoint pairs
        const Box a{centre(random), centre(random), size(random), size(random)};
        const Box b{centre(random), centre(random), size(random), size(random)};
        const BoxD da = to_double(a);
        const BoxD db = to_double(b);
        EXPECT_NEAR(box_giou(a, b), giou_ref(da, db), 1e-5);
        EXPECT_NEAR(box_diou(a, b), diou_ref(da, db), 1e-5);
        // box_ciou's alpha has + 1e-6 in its denominator.
        EXPECT_NEAR(box_ciou(a, b), ciou_ref(da, db), 1e-5);
    }
    const Box same{0.5f, 0.5f, 0.2f, 0.3f};
    EXPECT_FLOAT_EQ(box_giou(same, same), 1);
    EXPECT_FLOAT_EQ(box_diou(same, same), 1);
    EXPECT_FLOAT_EQ(box_ciou(same, same), 1);
    // Disjoint: GIoU -> -1 far apart.
    EXPECT_LT(box_giou(Box{0.05f, 0.05f, 0.01f, 0.01f}, Box{0.95f, 0.95f, 0.01f, 0.01f}), -0.99f);
}

// IoU and GIoU, overlapping: x and y are the gradient, w and h twice it (he does not halve
// d/dw = (d/dright - d/dleft) / 2).
TEST(IouLoss, IouAndGiouDeltasAreTheGradientWithWidthAndHeightDoubled) {
    for (const Pair& pair : overlapping_pairs(3, 200)) {
        const BoxD truth = to_double(pair.truth);
        const BoxD pred = to_double(pair.pred);
        const Gradient iou = finite_differences([&](const BoxD& p) { return iou_ref(p, truth); }, pred);
        const BoxDelta d_iou = iou_box_delta(pair.pred, pair.truth, IouLoss::Iou);
        EXPECT_NEAR(d_iou.x, iou.x, kTolerance);
        EXPECT_NEAR(d_iou.y, iou.y, kTolerance);
        EXPECT_NEAR(d_iou.w, 2 * iou.w, kTolerance);
        EXPECT_NEAR(d_iou.h, 2 * iou.h, kTolerance);
        const Gradient giou = finite_differences([&](const BoxD& p) { return giou_ref(p, truth); }, pred);
        const BoxDelta d_giou = iou_box_delta(pair.pred, pair.truth, IouLoss::Giou);
        EXPECT_NEAR(d_giou.x, giou.x, kTolerance);
        EXPECT_NEAR(d_giou.y, giou.y, kTolerance);
        EXPECT_NEAR(d_giou.w, 2 * giou.w, kTolerance);
        EXPECT_NEAR(d_giou.h, 2 * giou.h, kTolerance);
    }
}

// DIoU: the IoU part as above; the distance term's w, h the gradient of -rho^2/c^2; its x, y have the
// enclosure's part -rho^2 d(c^2)/c^4 with the opposite sign of the gradient's, which is
// -2 rho^2 d(c^2)/c^4 away from the gradient (0 where one box spans the other along that axis).
Gradient diou_expected(const BoxD& pred, const BoxD& truth) {
    const Gradient iou = finite_differences([&](const BoxD& p) { return iou_ref(p, truth); }, pred);
    const Gradient distance =
        finite_differences([&](const BoxD& p) { return -distance_ref(p, truth); }, pred);
    const Gradient c2 = finite_differences([&](const BoxD& p) { return c2_ref(p, truth); }, pred);
    const double c4 = c2_ref(pred, truth) * c2_ref(pred, truth);
    const double rho2 = rho2_ref(pred, truth);
    return Gradient{iou.x + distance.x - 2 * rho2 * c2.x / c4, iou.y + distance.y - 2 * rho2 * c2.y / c4,
                    2 * iou.w + distance.w, 2 * iou.h + distance.h};
}

TEST(IouLoss, DiouDeltaPinsTheEnclosureSign) {
    int differs = 0;
    for (const Pair& pair : overlapping_pairs(5, 200)) {
        const BoxD truth = to_double(pair.truth);
        const BoxD pred = to_double(pair.pred);
        const Gradient expected = diou_expected(pred, truth);
        const BoxDelta d = iou_box_delta(pair.pred, pair.truth, IouLoss::Diou);
        EXPECT_NEAR(d.x, expected.x, kTolerance);
        EXPECT_NEAR(d.y, expected.y, kTolerance);
        EXPECT_NEAR(d.w, expected.w, kTolerance);
        EXPECT_NEAR(d.h, expected.h, kTolerance);
        const Gradient gradient = finite_differences([&](const BoxD& p) { return diou_ref(p, truth); }, pred);
        if (std::abs(d.x - gradient.x) > 10 * kTolerance) ++differs;
    }
    EXPECT_GT(differs, 10);  // the sign is his, not the gradient's, on a fair share of pairs
}

// One box spanning the other on both axes: the enclosure does not move with x, y, and the DIoU
// delta's x, y are its true gradient.
TEST(IouLoss, DiouDeltaIsTheGradientOnXYForNestedBoxes) {
    const Box truth{0.5f, 0.45f, 0.4f, 0.5f};
    const Box pred{0.53f, 0.41f, 0.2f, 0.3f};
    const Gradient g =
        finite_differences([&](const BoxD& p) { return diou_ref(p, to_double(truth)); }, to_double(pred));
    const BoxDelta d = iou_box_delta(pred, truth, IouLoss::Diou);
    EXPECT_NEAR(d.x, g.x, kTolerance);
    EXPECT_NEAR(d.y, g.y, kTolerance);
    EXPECT_GT(std::abs(g.x), 0.1);
}

// CIoU: DIoU's delta plus alpha (held constant) times d(-v)/dw, h without v's 1/(w^2 + h^2).
TEST(IouLoss, CiouDeltaHoldsAlphaAndDropsTheAspectDenominator) {
    for (const Pair& pair : overlapping_pairs(7, 200)) {
        const BoxD truth = to_double(pair.truth);
        const BoxD pred = to_double(pair.pred);
        const Gradient diou = diou_expected(pred, truth);
        const double alpha = alpha_ref(pred, truth);  // frozen at the prediction
        const Gradient aspect =
            finite_differences([&](const BoxD& p) { return -alpha * v_ref(p, truth); }, pred);
        const double squares = pred.w * pred.w + pred.h * pred.h;
        const BoxDelta d = iou_box_delta(pair.pred, pair.truth, IouLoss::Ciou);
        EXPECT_NEAR(d.x, diou.x, kTolerance);
        EXPECT_NEAR(d.y, diou.y, kTolerance);
        EXPECT_NEAR(d.w, diou.w + aspect.w * squares, kTolerance);
        EXPECT_NEAR(d.h, diou.h + aspect.h * squares, kTolerance);
    }
}

// Without overlap the IoU part is dropped and the GIoU / distance term alone pulls the box towards
// the truth.
TEST(IouLoss, DisjointBoxesArePulledTogether) {
    const Box truth{0.7f, 0.6f, 0.2f, 0.2f};
    const Box pred{0.3f, 0.3f, 0.1f, 0.1f};
    for (const IouLoss kind : {IouLoss::Giou, IouLoss::Diou, IouLoss::Ciou}) {
        const BoxDelta d = iou_box_delta(pred, truth, kind);
        EXPECT_GT(d.x, 0) << static_cast<int>(kind);
        EXPECT_GT(d.y, 0) << static_cast<int>(kind);
    }
    // The plain IoU keeps the quotient of the unclamped intersection, here (-)(-) > 0, which pushes
    // the boxes apart: why the cfg reader refuses iou_loss=iou.
    EXPECT_LT(iou_box_delta(pred, truth, IouLoss::Iou).x, 0);
}

}  // namespace
}  // namespace fpgacnn::train

// --qat-score-weight's term: its deltas are minus its gradient with respect to what each head's
// backward takes ([region]: the activated objectness and the class logits; [yolo]: every logit),
// checked against central differences of the cost; anchors the teacher scores below the floor add
// nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "score_distance.hpp"

namespace fpgacnn::train_tool::test {
namespace {

constexpr int kAnchors = 2, kClasses = 3, kSide = 2;
constexpr int kEntries = 5 + kClasses;
constexpr std::size_t kPlane = kSide * kSide;

Layer head_layer(LayerType type) {
    Layer layer;
    layer.type = type;
    layer.output = {kAnchors * kEntries, kSide, kSide};
    if (type == LayerType::Region) {
        RegionParams region;
        region.num = kAnchors;
        region.classes = kClasses;
        layer.params = region;
    } else {
        YoloParams yolo;
        yolo.classes = kClasses;
        yolo.mask = {0, 1};
        layer.params = yolo;
    }
    return layer;
}

std::size_t at(int n, std::size_t cell, int entry) { return (n * kEntries + entry) * kPlane + cell; }

double logistic(double x) { return 1 / (1 + std::exp(-x)); }

// The head's activated output from raw values (`raw`): objectness logistic; classes softmax
// ([region]) or logistic ([yolo]). x, y, w, h are left raw (the term does not read them).
std::vector<float> activate(const std::vector<double>& raw, bool softmax) {
    std::vector<float> out(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) out[i] = static_cast<float>(raw[i]);
    for (int n = 0; n < kAnchors; ++n) {
        for (std::size_t cell = 0; cell < kPlane; ++cell) {
            out[at(n, cell, 4)] = static_cast<float>(logistic(raw[at(n, cell, 4)]));
            double sum = 0;
            for (int c = 0; c < kClasses; ++c) sum += std::exp(raw[at(n, cell, 5 + c)]);
            for (int c = 0; c < kClasses; ++c) {
                const double z = raw[at(n, cell, 5 + c)];
                out[at(n, cell, 5 + c)] = static_cast<float>(softmax ? std::exp(z) / sum : logistic(z));
            }
        }
    }
    return out;
}

void check_against_differences(LayerType type) {
    const Layer layer = head_layer(type);
    const bool region = type == LayerType::Region;
    std::mt19937 random(4);
    std::normal_distribution<double> normal(0.0, 1.5);
    std::vector<double> teacher_raw(layer.output.size()), student_raw(layer.output.size());
    for (double& v : teacher_raw) v = normal(random) + 1.0;  // most anchors above the floor
    for (std::size_t i = 0; i < student_raw.size(); ++i)
        student_raw[i] = teacher_raw[i] + 0.3 * normal(random);
    const std::vector<float> teacher = activate(teacher_raw, region);
    const float weight = 7;
    const auto cost_at = [&](const std::vector<double>& raw) {
        std::vector<float> scratch(raw.size(), 0.0f);
        return add_score_deltas(layer, 1, teacher, activate(raw, region), weight, scratch);
    };
    std::vector<float> delta(layer.output.size(), 0.0f);
    const double cost = add_score_deltas(layer, 1, teacher, activate(student_raw, region), weight, delta);
    ASSERT_GT(cost, 0);
    int checked = 0;
    for (int n = 0; n < kAnchors; ++n) {
        for (std::size_t cell = 0; cell < kPlane; ++cell) {
            for (int entry = 4; entry < kEntries; ++entry) {
                const std::size_t i = at(n, cell, entry);
                // [region]'s objectness delta is on the activated value: differentiate through it.
                const bool on_activated = region && entry == 4;
                std::vector<double> plus = student_raw, minus = student_raw;
                double h = 1e-4;
                if (on_activated) {
                    const double p = logistic(student_raw[i]);
                    plus[i] = std::log((p + h) / (1 - p - h));
                    minus[i] = std::log((p - h) / (1 - p + h));
                } else {
                    plus[i] += h;
                    minus[i] -= h;
                }
                const double gradient = (cost_at(plus) - cost_at(minus)) / (2 * h);
                EXPECT_NEAR(delta[i], -gradient, 2e-3 * (1 + std::fabs(gradient)))
                    << "anchor " << n << " cell " << cell << " entry " << entry;
                ++checked;
            }
        }
    }
    EXPECT_EQ(checked, kAnchors * static_cast<int>(kPlane) * (kEntries - 4));
}

TEST(ScoreDistance, RegionDeltasAreMinusTheGradient) { check_against_differences(LayerType::Region); }

TEST(ScoreDistance, YoloDeltasAreMinusTheGradient) { check_against_differences(LayerType::Yolo); }

TEST(ScoreDistance, AnchorsBelowTheFloorAndWeightZeroAddNothing) {
    const Layer layer = head_layer(LayerType::Region);
    std::vector<double> raw(layer.output.size(), -4.0);  // objectness 0.018: every score below 0.1
    const std::vector<float> teacher = activate(raw, true);
    std::vector<double> moved = raw;
    for (double& v : moved) v += 1.0;
    std::vector<float> delta(layer.output.size(), 0.0f);
    EXPECT_EQ(add_score_deltas(layer, 1, teacher, activate(moved, true), 5, delta), 0);
    for (const float d : delta) EXPECT_EQ(d, 0.0f);
    raw[at(1, 2, 4)] = 3.0;  // one anchor now scores 0.95 / 3 > 0.1
    const std::vector<float> scored = activate(raw, true);
    EXPECT_EQ(add_score_deltas(layer, 1, scored, activate(moved, true), 0, delta), 0);
    EXPECT_GT(add_score_deltas(layer, 1, scored, activate(moved, true), 5, delta), 0);
    EXPECT_NE(delta[at(1, 2, 4)], 0.0f);
    EXPECT_EQ(delta[at(0, 2, 4)], 0.0f);
}

}  // namespace
}  // namespace fpgacnn::train_tool::test

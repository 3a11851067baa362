// The [yolo] loss against libdarknet (pjreddie's forward_yolo_layer / backward_yolo_layer, which the
// oracle runs as they are: the yolo layer's CPU backward does add its delta to the previous layer's):
// one head's deltas and cost on random truths, and one SGD step of a small YOLOv3-tiny-like network
// (conv, maxpool, upsample, route, two [yolo] heads).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "train/truth_boxes.hpp"
#include "training_cfg_text.hpp"
#include "training_pair.hpp"

namespace fpgacnn::crosscheck::yolo_crosscheck {
namespace {

constexpr double kLayerTolerance = 1e-5;
constexpr double kNetworkTolerance = 1e-3;

// 32x32 input, batch 2, rate 0.01 (after a burn-in of one update).
const std::string kNet = fpgacnn::test::training_net_section(
    2, 1, 32, "burn_in=1\nmax_batches=100\npolicy=steps\nsteps=20000,30000\nscales=.1,.1\n");

// Six anchors in input pixels; a head of three of them (mask), 2 classes: 3 * (4 + 1 + 2) = 21 filters.
const char* const kAnchors = "anchors=3,4, 5,8, 9,7, 12,15, 20,18, 28,26\nclasses=2\nnum=6\n";

std::string yolo_section(const std::string& mask, const std::string& extra) {
    return "[yolo]\nmask=" + mask + "\n" + kAnchors + "jitter=.3\nrandom=0\n" + extra + "\n";
}

// One head on a conv (so its backward reaches parameters): 32x32 -> 16x16 grid.
std::string one_head(const std::string& yolo_options) {
    return kNet +
           "[convolutional]\nbatch_normalize=1\nfilters=8\nsize=3\nstride=2\npad=1\nactivation=leaky\n\n"
           "[convolutional]\nfilters=21\nsize=1\nstride=1\npad=1\nactivation=linear\n\n" +
           yolo_section("0,1,2", yolo_options);
}

// yolov3-tiny's shape in small: two heads (8x8 and 16x16), the second fed by an upsampled route of the
// first's trunk concatenated with an earlier layer.
std::string two_heads() {
    return kNet +
           "[convolutional]\nbatch_normalize=1\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
           "[maxpool]\nsize=2\nstride=2\n\n"
           "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
           "[maxpool]\nsize=2\nstride=2\n\n"
           "[convolutional]\nbatch_normalize=1\nfilters=32\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
           "[maxpool]\nsize=2\nstride=1\n\n"
           "[convolutional]\nfilters=21\nsize=1\nstride=1\npad=1\nactivation=linear\n\n" +
           yolo_section("3,4,5", "ignore_thresh=.3\ntruth_thresh=1") +
           "[route]\nlayers=-4\n\n"
           "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=1\nstride=1\npad=1\nactivation=leaky\n\n"
           "[upsample]\nstride=2\n\n"
           "[route]\nlayers=-1,2\n\n"
           "[convolutional]\nbatch_normalize=1\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
           "[convolutional]\nfilters=21\nsize=1\nstride=1\npad=1\nactivation=linear\n\n" +
           yolo_section("0,1,2", "ignore_thresh=.3\ntruth_thresh=1");
}

/// Random truths: `count` boxes an image inside it, random classes, one large box (so predictions
/// overlap a truth above the thresholds) and two boxes of one cell and anchor (darknet's class rule
/// for a cell that already has a class delta).
void random_truth(std::vector<float>& truth, int batch, int count, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> centre(0.05f, 0.95f);
    std::uniform_real_distribution<float> side(0.04f, 0.6f);
    std::uniform_int_distribution<int> cls(0, 1);
    std::fill(truth.begin(), truth.end(), 0.0f);
    for (int b = 0; b < batch; ++b) {
        float* image =
            truth.data() + static_cast<std::size_t>(b) * train::kMaxTruthBoxes * train::kTruthFloats;
        for (int t = 0; t < count; ++t) {
            float* box = image + t * train::kTruthFloats;
            box[0] = centre(random);
            box[1] = centre(random);
            box[2] = side(random);
            box[3] = side(random);
            box[4] = static_cast<float>(cls(random));
        }
        // boxes 0 and 1: one cell (8x8 and 16x16 grids) and one anchor (9x7 pixels), other classes
        const float twins[2][5] = {{0.51f, 0.46f, 0.28f, 0.22f, 1}, {0.52f, 0.47f, 0.27f, 0.23f, 0}};
        std::copy(&twins[0][0], &twins[0][0] + 10, image);
        const float large[5] = {0.5f, 0.5f, 0.9f, 0.85f, 1};
        std::copy(large, large + 5, image + 2 * train::kTruthFloats);
    }
}

struct ObjectnessRules {
    int ignored = 0;   // zero: overlapping a truth above ignore_thresh (and no truth of its own)
    int positive = 0;  // towards 1: a truth's anchor (or above truth_thresh)
};

ObjectnessRules objectness_rules(const TrainingPair& pair, int yolo_layer) {
    const Layer& layer = pair.network().layers[static_cast<std::size_t>(yolo_layer)];
    const std::vector<float>& delta = pair.trainer().delta(yolo_layer);
    const std::vector<float>& output = pair.trainer().output(yolo_layer);
    const std::size_t plane = static_cast<std::size_t>(layer.output.w) * layer.output.h;
    const int entries = 5 + layer.yolo().classes;
    ObjectnessRules rules;
    for (std::size_t b = 0; b < delta.size() / layer.output.size(); ++b) {
        for (std::size_t n = 0; n < layer.yolo().mask.size(); ++n) {
            for (std::size_t cell = 0; cell < plane; ++cell) {
                const std::size_t at = b * layer.output.size() + (n * entries + 4) * plane + cell;
                if (delta[at] == 0.0f) ++rules.ignored;
                if (delta[at] == 1 - output[at]) ++rules.positive;
            }
        }
    }
    return rules;
}

void expect_same_head(const std::string& yolo_options, unsigned seed, bool expect_truth_thresh,
                      int boxes = 8) {
    TrainingPair pair(one_head(yolo_options), seed);
    random_truth(pair.truth(), pair.trainer().batch(), boxes, seed);
    const float cost = pair.forward(20000);
    const int yolo = 2;
    const ObjectnessRules rules = objectness_rules(pair, yolo);
    EXPECT_GT(rules.ignored, 0) << "no prediction above ignore_thresh: the test misses that rule";
    // Each image's truths set a few positives; truth_thresh adds the predictions above it.
    const int from_truths = 2 * boxes;
    if (expect_truth_thresh) {
        EXPECT_GT(rules.positive, from_truths) << "no prediction above truth_thresh";
    } else {
        EXPECT_LE(rules.positive, from_truths);
    }
    const double delta = max_relative_difference(pair.trainer().delta(yolo), pair.oracle().delta(yolo));
    const float darknet_cost = pair.oracle().layer_cost(yolo);
    pair.backward();
    const double previous_delta =
        max_relative_difference(pair.trainer().delta(yolo - 1), pair.oracle().delta(yolo - 1));
    const WorstDifference gradients = pair.gradients();
    std::string options = yolo_options;
    std::replace(options.begin(), options.end(), '\n', ' ');
    std::printf(
        "[yolo] %s: delta %.1e  cost %.6g vs %.6g  previous delta %.1e  gradients %.1e  (%d ignored, %d "
        "positive)\n",
        options.c_str(), delta, cost, darknet_cost, previous_delta, gradients.value, rules.ignored,
        rules.positive);
    EXPECT_LE(delta, kLayerTolerance);
    EXPECT_NEAR(cost, darknet_cost, kLayerTolerance * darknet_cost);
    EXPECT_LE(previous_delta, kLayerTolerance) << "backward_yolo_layer adds the delta as it is";
    EXPECT_LE(gradients.value, kNetworkTolerance) << "gradients of layer " << gradients.layer;
}

TEST(YoloTraining, HeadMatchesDarknet) { expect_same_head("ignore_thresh=.3\ntruth_thresh=1", 41, false); }

// truth_thresh below 1: predictions overlapping a truth enough are trained towards it (box, class, 1).
TEST(YoloTraining, HeadMatchesDarknetAboveTruthThresh) {
    expect_same_head("ignore_thresh=.1\ntruth_thresh=.2", 42, true);
}

// `max` limits the truths each image's loss reads, in both loops.
TEST(YoloTraining, HeadMatchesDarknetWithMaxBoxes) { expect_same_head("ignore_thresh=.3\nmax=3", 43, false); }

// 60 truths an image: the yolo layer reads up to 90 (the region 30).
TEST(YoloTraining, HeadMatchesDarknetWithSixtyTruths) { expect_same_head("ignore_thresh=.3", 44, false, 60); }

TEST(YoloTraining, TwoHeadNetworkStepMatchesDarknet) {
    TrainingPair pair(two_heads(), 44);
    random_truth(pair.truth(), pair.trainer().batch(), 10, 44);
    const float cost = pair.forward(20000);
    const float darknet_cost = pair.oracle().network_cost();
    const WorstDifference outputs = pair.outputs();
    const WorstDifference loss_deltas = pair.deltas();
    pair.backward();
    const WorstDifference deltas = pair.deltas();
    const WorstDifference gradients = pair.gradients();
    const double input_delta = pair.input_delta();
    pair.update(20000);
    const WorstDifference changes = pair.parameter_changes();
    std::printf(
        "two-head yolo step: cost %.6g vs %.6g  output %.1e  loss delta %.1e  deltas %.1e  gradients %.1e  "
        "input delta %.1e  weight change %.1e\n",
        cost, darknet_cost, outputs.value, loss_deltas.value, deltas.value, gradients.value, input_delta,
        changes.value);
    EXPECT_NEAR(cost, darknet_cost, 1e-4 * darknet_cost) << "calc_network_cost: the heads' mean";
    EXPECT_GT(objectness_rules(pair, 7).ignored, 0);
    EXPECT_GT(objectness_rules(pair, 14).ignored, 0);
    EXPECT_LE(outputs.value, kNetworkTolerance) << "output of layer " << outputs.layer;
    EXPECT_LE(loss_deltas.value, kNetworkTolerance) << "loss delta of layer " << loss_deltas.layer;
    EXPECT_LE(deltas.value, kNetworkTolerance) << "delta of layer " << deltas.layer;
    EXPECT_LE(gradients.value, kNetworkTolerance) << "gradients of layer " << gradients.layer;
    EXPECT_LE(input_delta, kNetworkTolerance);
    EXPECT_LE(changes.value, kNetworkTolerance) << "parameter change of layer " << changes.layer;
}

}  // namespace
}  // namespace fpgacnn::crosscheck::yolo_crosscheck

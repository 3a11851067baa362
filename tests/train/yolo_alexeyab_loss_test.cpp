// AlexeyAB's [yolo] loss (train/yolo_loss with YoloLossOptions::alexeyab): scale_x_y in the trainer's
// forward as in inference, his mse deltas equal to pjreddie's where their rules coincide, the
// normalizers and max_delta as his forward_yolo_layer applies them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/float_engine.hpp"
#include "fpgacnn/float_ops.hpp"
#include "model/cfg_parser.hpp"
#include "train/float_trainer.hpp"
#include "train/head_index.hpp"
#include "train/yolo_loss.hpp"

namespace fpgacnn::train {
namespace {

// An 8x8 input, a 1x1 linear conv and a [yolo] head of 2 of 4 anchors over 2 classes (8x8 grid).
std::string head_cfg(const std::string& yolo_options) {
    return "[net]\nbatch=1\nwidth=8\nheight=8\nchannels=3\n"
           "[convolutional]\nfilters=14\nsize=1\nactivation=linear\n"
           "[yolo]\nmask=2,3\nanchors=1,1,2,3,3,2,5,6\nnum=4\nclasses=2\n" +
           yolo_options;
}

struct Head {
    Network network;
    TrainingOptions options;
    const Layer& layer() const { return network.layers[1]; }
};

Head make_head(const std::string& yolo_options) {
    const std::string cfg = head_cfg(yolo_options);
    Head head{parse_darknet_cfg(cfg, "head.cfg"),
              read_training_options(model::parse_cfg_text(cfg, "head.cfg"))};
    fill_synthetic_weights(head.network, 3);
    return head;
}

/// The head's activated output for random raw values, class 0 above 0.25 everywhere (AlexeyAB's
/// ignore rule then counts every truth, as pjreddie's does).
std::vector<float> activated_output(const Layer& layer, int batch, unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> raw(-2.0f, 2.0f);
    std::vector<float> output(layer.output.size() * batch);
    for (float& v : output) v = raw(random);
    const HeadIndex index = head_index(layer);
    for (int b = 0; b < batch; ++b) {
        for (int n = 0; n < 2; ++n) {
            for (std::size_t cell = 0; cell < index.plane; ++cell)
                output[index.at(b, n, cell, 5)] = std::abs(output[index.at(b, n, cell, 5)]);
        }
        yolo_activate(layer.yolo(), layer.output, output.data() + b * layer.output.size());
    }
    return output;
}

std::vector<float> truths(const std::vector<std::vector<float>>& per_image) {
    std::vector<float> truth(per_image.size() * kMaxTruthBoxes * kTruthFloats, 0.0f);
    for (std::size_t b = 0; b < per_image.size(); ++b)
        std::copy(per_image[b].begin(), per_image[b].end(),
                  truth.begin() + b * kMaxTruthBoxes * kTruthFloats);
    return truth;
}

// With iou_loss=mse, every normalizer 1 and one truth an image (his class and accumulation rules then
// do what pjreddie's do), AlexeyAB's deltas and cost are pjreddie's, bit for bit.
TEST(YoloAlexeyABLoss, MseWithUnitNormalizersIsPjreddiesLoss) {
    const Head head = make_head("ignore_thresh=.3\n");
    const Layer& layer = head.layer();
    const int batch = 2;
    const std::vector<float> output = activated_output(layer, batch, 21);
    // Boxes whose best anchors (2 and 3) are this head's, and one (anchor 0's shape) that is not.
    const std::vector<float> truth = truths({{0.4f, 0.6f, 0.3f, 0.35f, 1, 0.8f, 0.2f, 0.6f, 0.7f, 0},
                                             {0.7f, 0.3f, 0.35f, 0.25f, 0, 0.2f, 0.8f, 0.1f, 0.1f, 1}});
    YoloLossOptions pjreddie = head.options.yolos.at(1);
    pjreddie.ignore_thresh = 0.3f;
    YoloLossOptions alexeyab = pjreddie;
    alexeyab.alexeyab = true;
    alexeyab.iou_loss = IouLoss::Mse;
    alexeyab.iou_normalizer = 1;
    std::vector<float> expected(output.size());
    std::vector<float> delta(output.size());
    const float expected_cost =
        yolo_loss(layer, pjreddie, head.network.input, batch, output.data(), truth.data(), expected.data());
    const float cost =
        yolo_loss(layer, alexeyab, head.network.input, batch, output.data(), truth.data(), delta.data());
    EXPECT_EQ(cost, expected_cost);
    EXPECT_EQ(delta, expected);
    int box_deltas = 0;
    for (const float d : delta) box_deltas += d != 0;
    EXPECT_GT(box_deltas, 40);  // no-object deltas and two truths' boxes
}

// Where his rules differ from pjreddie's: two truths on one anchor add their box deltas (pjreddie's:
// the last one's), and the ignore rule counts a truth only where some class output is above 0.25.
TEST(YoloAlexeyABLoss, AccumulatesBoxesAndGatesTheIgnoreRuleByClass) {
    const Head head = make_head("iou_loss=mse\niou_normalizer=1\nignore_thresh=0\n");
    const Layer& layer = head.layer();
    const HeadIndex index = head_index(layer);
    std::vector<float> output = activated_output(layer, 1, 13);
    for (int n = 0; n < 2; ++n) {  // every class output below 0.25
        for (std::size_t cell = 0; cell < index.plane; ++cell) {
            output[index.at(0, n, cell, 5)] = 0.1f;
            output[index.at(0, n, cell, 6)] = 0.2f;
        }
    }
    // Both in cell (3, 4) with anchor 2 (mask entry 0).
    const float a[5] = {0.40f, 0.60f, 0.35f, 0.25f, 1};
    const float b[5] = {0.41f, 0.61f, 0.36f, 0.26f, 0};
    const std::vector<float> truth = truths({{a[0], a[1], a[2], a[3], a[4], b[0], b[1], b[2], b[3], b[4]}});
    YoloLossOptions alexeyab = head.options.yolos.at(1);
    YoloLossOptions pjreddie = alexeyab;
    pjreddie.alexeyab = false;
    std::vector<float> his(output.size());
    std::vector<float> theirs(output.size());
    yolo_loss(layer, alexeyab, head.network.input, 1, output.data(), truth.data(), his.data());
    yolo_loss(layer, pjreddie, head.network.input, 1, output.data(), truth.data(), theirs.data());
    const std::size_t at = index.at(0, 0, 4 * 8 + 3, 0);
    const float x = output[at];
    const float from_a = (2 - a[2] * a[3]) * (a[0] * 8 - 3 - x);
    const float from_b = (2 - b[2] * b[3]) * (b[0] * 8 - 3 - x);
    EXPECT_FLOAT_EQ(his[at], from_a + from_b);
    EXPECT_FLOAT_EQ(theirs[at], from_b);
    // A prediction overlapping a truth elsewhere: pjreddie ignores it (IoU > 0), AlexeyAB does not.
    int ignored_by_pjreddie_only = 0;
    for (int n = 0; n < 2; ++n) {
        for (std::size_t cell = 0; cell < index.plane; ++cell) {
            if (cell == 4 * 8 + 3) continue;
            const std::size_t obj = index.at(0, n, cell, 4);
            EXPECT_FLOAT_EQ(his[obj], -output[obj]);
            if (theirs[obj] == 0) ++ignored_by_pjreddie_only;
        }
    }
    EXPECT_GT(ignored_by_pjreddie_only, 0);
}

// iou_normalizer scales the box deltas, obj_normalizer the objectness ones, and cls_normalizer changes
// nothing (his delta_yolo_class applies it only with counters_per_class); max_delta clips IoU deltas.
TEST(YoloAlexeyABLoss, NormalizersScaleTheirDeltas) {
    const Head head = make_head("iou_loss=ciou\n");
    const Layer& layer = head.layer();
    const HeadIndex index = head_index(layer);
    const std::vector<float> output = activated_output(layer, 1, 5);
    const std::vector<float> truth = truths({{0.4f, 0.6f, 0.35f, 0.25f, 1}});
    const auto run = [&](const YoloLossOptions& options) {
        std::vector<float> delta(output.size());
        yolo_loss(layer, options, head.network.input, 1, output.data(), truth.data(), delta.data());
        return delta;
    };
    YoloLossOptions base = head.options.yolos.at(1);
    ASSERT_TRUE(base.alexeyab);
    ASSERT_EQ(base.iou_loss, IouLoss::Ciou);
    base.iou_normalizer = 1;
    const std::vector<float> reference = run(base);
    YoloLossOptions scaled = base;
    scaled.iou_normalizer = 0.07f;
    scaled.obj_normalizer = 0.5f;
    scaled.cls_normalizer = 3;
    const std::vector<float> delta = run(scaled);
    // The truth's cell: (3, 4) of the 8x8 grid, anchor 2 (mask entry 0).
    const std::size_t cell = 4 * 8 + 3;
    for (int k = 0; k < 4; ++k) {
        const std::size_t at = index.at(0, 0, cell, k);
        ASSERT_NE(reference[at], 0) << k;
        EXPECT_FLOAT_EQ(delta[at], 0.07f * reference[at]) << k;
    }
    for (int n = 0; n < 2; ++n) {
        for (std::size_t c = 0; c < index.plane; ++c) {
            const std::size_t obj = index.at(0, n, c, 4);
            EXPECT_FLOAT_EQ(delta[obj], 0.5f * reference[obj]);
            for (int k = 5; k < 7; ++k)
                EXPECT_EQ(delta[index.at(0, n, c, k)], reference[index.at(0, n, c, k)]);
        }
    }
    YoloLossOptions clipped = base;
    clipped.max_delta = 0.01f;
    const std::vector<float> clip = run(clipped);
    for (int k = 0; k < 4; ++k) {
        const std::size_t at = index.at(0, 0, cell, k);
        EXPECT_FLOAT_EQ(clip[at], std::clamp(reference[at], -0.01f, 0.01f)) << k;
    }
}

// The IoU losses' box delta on tx, ty is dx_box_iou's (no 1/lw, no logistic factor); on tw, th times
// exp(tw), exp(th); no (2 - w*h) scale.
TEST(YoloAlexeyABLoss, IouDeltaMapsToTheRawOutputs) {
    const Head head = make_head("iou_loss=giou\niou_normalizer=0.5\n");
    const Layer& layer = head.layer();
    const HeadIndex index = head_index(layer);
    const std::vector<float> output = activated_output(layer, 1, 9);
    const Box truth_box{0.4f, 0.6f, 0.35f, 0.25f};
    const std::vector<float> truth = truths({{truth_box.x, truth_box.y, truth_box.w, truth_box.h, 1}});
    std::vector<float> delta(output.size());
    yolo_loss(layer, head.options.yolos.at(1), head.network.input, 1, output.data(), truth.data(),
              delta.data());
    const std::size_t at = index.at(0, 0, 4 * 8 + 3, 0);
    const std::size_t plane = index.plane;
    const float tw = output[at + 2 * plane];
    const float th = output[at + 3 * plane];
    // get_yolo_box with anchor 2 (3x2 pixels of the 8x8 input).
    const Box pred{(3 + output[at]) / 8, (4 + output[at + plane]) / 8, std::exp(tw) * 3 / 8,
                   std::exp(th) * 2 / 8};
    const BoxDelta d = iou_box_delta(pred, truth_box, IouLoss::Giou);
    EXPECT_FLOAT_EQ(delta[at], 0.5f * d.x);
    EXPECT_FLOAT_EQ(delta[at + plane], 0.5f * d.y);
    EXPECT_NEAR(delta[at + 2 * plane], 0.5f * d.w * std::exp(tw), 1e-6);
    EXPECT_NEAR(delta[at + 3 * plane], 0.5f * d.h * std::exp(th), 1e-6);
}

// scale_x_y: the trainer's forward of the head is the inference path's (FloatEngine), and the mse
// delta of x is taken on the scaled value; darknet's backward passes the delta on unchanged (no
// logistic or scale factor), so does yolo_backward.
TEST(YoloAlexeyABLoss, ScaleXYForwardIsInferencesAndBackwardPassesTheDelta) {
    const std::string cfg = head_cfg("scale_x_y=1.05\niou_loss=mse\niou_normalizer=1\n");
    Network network = parse_darknet_cfg(cfg, "head.cfg");
    fill_synthetic_weights(network, 3);
    FloatEngine engine(network);
    FloatTrainer trainer(network, read_training_options(model::parse_cfg_text(cfg, "head.cfg")));
    std::mt19937 random(2);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> input(network.input.size());
    for (float& v : input) v = pixel(random);
    const std::vector<float> truth = truths({{0.4f, 0.6f, 0.35f, 0.25f, 1}});
    trainer.forward(input.data(), truth.data(), 1);
    const std::vector<float>& inference = engine.run(input.data());
    const std::vector<float>& trained = trainer.output(1);
    ASSERT_EQ(trained.size(), inference.size());
    for (std::size_t k = 0; k < trained.size(); ++k) EXPECT_NEAR(trained[k], inference[k], 1e-5) << k;
    const HeadIndex index = head_index(network.layers[1]);
    const std::size_t at = index.at(0, 0, 4 * 8 + 3, 0);
    const float raw = trainer.output(0)[at];
    const float scaled = 1.05f / (1 + std::exp(-raw)) - 0.025f;
    EXPECT_NEAR(trained[at], scaled, 1e-6);
    EXPECT_NEAR(trainer.delta(1)[at], (2 - 0.35f * 0.25f) * (0.4f * 8 - 3 - scaled), 1e-5);
    trainer.backward();
    EXPECT_EQ(trainer.delta(0), trainer.delta(1));
}

}  // namespace
}  // namespace fpgacnn::train

// What the float trainer refuses, and that it learns: the region loss on one fixed batch falls.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "model/cfg_parser.hpp"
#include "train/float_trainer.hpp"
#include "train/region_loss.hpp"
#include "training_cfg_text.hpp"

namespace fpgacnn::train {
namespace {

// Two batch-normalized 3x3 convs with maxpools before the head.
std::string tiny_net() {
    return fpgacnn::test::training_net_section(2, 1, 16) + R"([convolutional]
batch_normalize=1
filters=8
size=3
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
batch_normalize=1
filters=16
size=3
pad=1
activation=leaky
[maxpool]
size=2
stride=2
)" + fpgacnn::test::two_class_region_head();
}

FloatTrainer make_trainer(const std::string& cfg, bool fold = false) {
    Network network = parse_darknet_cfg(cfg, "tiny.cfg");
    fill_synthetic_weights(network, 1);
    if (fold) fold_batchnorm(network);
    return FloatTrainer(std::move(network), read_training_options(model::parse_cfg_text(cfg, "tiny.cfg")));
}

std::string error_of(const std::string& cfg, bool fold = false) {
    try {
        make_trainer(cfg, fold);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(FloatTrainer, RefusesAFoldedBatchNorm) {
    EXPECT_NE(error_of(tiny_net(), true).find("folded"), std::string::npos);
}

// pjreddie's [yolo] loss and AlexeyAB's (YOLOv4's heads) are trained; his options not implemented are
// refused by name, and so is mish.
TEST(FloatTrainer, RefusesUnimplementedAlexeyABYoloLossAndMish) {
    const std::string yolo =
        "[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=7\nsize=1\n"
        "activation=linear\n[yolo]\nmask=0\nanchors=1,1\nclasses=2\nnum=1\n";
    EXPECT_EQ(error_of(yolo), "");
    EXPECT_EQ(error_of(yolo + "scale_x_y=1.05\niou_loss=ciou\niou_normalizer=0.07\n"), "");
    EXPECT_NE(error_of(yolo + "focal_loss=1\n").find("focal_loss"), std::string::npos);
    const std::string mish =
        "[net]\nwidth=8\nheight=8\nchannels=3\n[convolutional]\nfilters=2\nsize=1\nactivation=mish\n";
    EXPECT_NE(error_of(mish).find("mish"), std::string::npos) << error_of(mish);
}

TEST(FloatTrainer, RefusesATruthOutsideTheImage) {
    FloatTrainer trainer = make_trainer(tiny_net());
    std::vector<float> input(trainer.network().input.size() * 2, 0.5f);
    std::vector<float> truth(2 * kMaxTruthBoxes * kTruthFloats, 0.0f);
    const float box[] = {1.2f, 0.5f, 0.2f, 0.2f, 0};
    std::copy(box, box + 5, truth.begin());
    EXPECT_THROW(trainer.train_batch(input.data(), truth.data()), Error);
    const float huge_class[] = {0.5f, 0.5f, 0.2f, 0.2f, 1e30f};
    std::copy(huge_class, huge_class + 5, truth.begin());
    EXPECT_THROW(trainer.train_batch(input.data(), truth.data()), Error);
}

TEST(FloatTrainer, RefusesBatchNormOverOneValue) {
    const std::string one =
        "[net]\nbatch=1\nwidth=1\nheight=1\nchannels=3\n[convolutional]\nbatch_normalize=1\n"
        "filters=2\nsize=1\nactivation=leaky\n";
    EXPECT_NE(error_of(one).find("raise [net] batch"), std::string::npos) << error_of(one);
}

// rescore=0 here: with rescore the objectness target starts at the poor early IoU, the objectness of
// a truth's anchor is driven into the logistic's flat tail (darknet's delta is on the activated value,
// times y(1 - y)) and the cost stalls near object_scale^2 (docs/darknet-semantics.md).
/// 150 more steps of train_batch on one fixed batch of 2 random images with one box each; the first
/// and the last cost.
std::pair<float, float> overfit(FloatTrainer& trainer, const float (&boxes)[2][5], unsigned seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> input(trainer.network().input.size() * 2);
    for (float& v : input) v = pixel(random);
    std::vector<float> truth(2 * kMaxTruthBoxes * kTruthFloats, 0.0f);
    for (int b = 0; b < 2; ++b)
        std::copy(boxes[b], boxes[b] + 5, truth.begin() + b * kMaxTruthBoxes * kTruthFloats);
    const float first = trainer.train_batch(input.data(), truth.data());
    float last = first;
    for (int step = 0; step < 150; ++step) last = trainer.train_batch(input.data(), truth.data());
    return {first, last};
}

TEST(FloatTrainer, OverfitsOneBatch) {
    FloatTrainer trainer = make_trainer(tiny_net());
    const float boxes[2][5] = {{0.3f, 0.6f, 0.25f, 0.3f, 1}, {0.7f, 0.2f, 0.4f, 0.35f, 0}};
    const auto [first, last] = overfit(trainer, boxes, 4);
    std::printf("region cost on one batch: %.4f -> %.4f after 150 steps\n", first, last);
    EXPECT_LT(last, first / 10);
    EXPECT_EQ(trainer.seen(), 302U);
}

// The [yolo] loss learns too: tiny_net's trunk with a YOLOv3 head (3 of 6 anchors, in input pixels).
TEST(FloatTrainer, OverfitsOneBatchThroughAYoloHead) {
    std::string cfg = tiny_net();
    cfg = cfg.substr(0, cfg.find("[convolutional]\nfilters=14")) +
          "[convolutional]\nfilters=21\nsize=1\nactivation=linear\n"
          "[yolo]\nmask=3,4,5\nanchors=2,2,3,4,5,5,6,8,9,7,12,12\nnum=6\nclasses=2\nignore_thresh=.5\n";
    FloatTrainer trainer = make_trainer(cfg);
    const float boxes[2][5] = {{0.3f, 0.6f, 0.35f, 0.4f, 1}, {0.7f, 0.2f, 0.5f, 0.45f, 0}};
    const auto [first, last] = overfit(trainer, boxes, 5);
    std::printf("yolo cost on one batch: %.4g -> %.3g after 150 steps\n", first, last);
    EXPECT_LT(last, first / 10);
}

}  // namespace
}  // namespace fpgacnn::train

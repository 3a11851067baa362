// The whole yolov4-tiny (cfg/yolov4-tiny.cfg: route groups, upsample, two [yolo] heads with AlexeyAB's
// scale_x_y and CIoU loss) learns one fixed batch with synthetic weights. The 128x128 run is labelled
// slow (tests/CMakeLists.txt); a 64x64 one with fewer steps runs in the normal suite.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "model/cfg_parser.hpp"
#include "test_paths.hpp"
#include "train/float_trainer.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::train {
namespace {

/// cfg/yolov4-tiny.cfg at `size` x `size`, batch 1 and no burn-in (the fresh network trains at the
/// cfg's learning_rate from the first step); every other line as shipped.
std::string yolov4_tiny(int size) {
    std::ifstream file(fpgacnn::test::source_dir() + "/cfg/yolov4-tiny.cfg");
    std::stringstream text;
    text << file.rdbuf();
    std::string cfg = text.str();
    const auto set = [&cfg](const std::string& from, const std::string& to) {
        const std::size_t at = cfg.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        cfg.replace(at, from.size(), to);
    };
    set("batch=64", "batch=1");
    set("width=416", "width=" + std::to_string(size));
    set("height=416", "height=" + std::to_string(size));
    set("burn_in=1000", "burn_in=0");
    return cfg;
}

/// `steps` train_batch calls on one random image with three boxes; the first and the last cost.
std::pair<float, float> overfit(int size, int steps) {
    const std::string cfg = yolov4_tiny(size);
    Network network = parse_darknet_cfg(cfg, "yolov4-tiny.cfg");
    fill_synthetic_weights(network, 1);
    FloatTrainer trainer(std::move(network),
                         read_training_options(model::parse_cfg_text(cfg, "yolov4-tiny.cfg")));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    std::vector<float> input(trainer.network().input.size());
    for (float& v : input) v = pixel(random);
    std::vector<float> truth(kMaxTruthBoxes * kTruthFloats, 0.0f);
    const float boxes[] = {0.45f, 0.5f, 0.6f,  0.55f, 1,    0.29f, 0.67f, 0.26f,
                           0.56f, 16,   0.75f, 0.21f, 0.3f, 0.16f, 7};
    std::copy(std::begin(boxes), std::end(boxes), truth.begin());
    const float first = trainer.train_batch(input.data(), truth.data());
    float last = first;
    for (int step = 1; step < steps; ++step) last = trainer.train_batch(input.data(), truth.data());
    return {first, last};
}

TEST(Yolov4TinyOverfit, LossFallsOnOneBatchAt64) {
    const auto [first, last] = overfit(64, 25);
    std::printf("yolov4-tiny 64x64 cost: %.4g -> %.4g after 25 steps\n", first, last);
    EXPECT_LT(last, first / 10);
}

TEST(Yolov4TinyOverfitSlow, LossFallsTenfoldOnOneBatchAt128) {
    const auto [first, last] = overfit(128, 150);
    std::printf("yolov4-tiny 128x128 cost: %.4g -> %.4g after 150 steps\n", first, last);
    EXPECT_LT(last, first / 10);
}

}  // namespace
}  // namespace fpgacnn::train

// darknet's augmentation as fpgacnn-train does it: reproducible from a seed, and with no jitter or
// colour change only the placement and flip remain, which move the boxes with the pixels.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "darknet_augment.hpp"
#include "fpgacnn/error.hpp"
#include "model/cfg_parser.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::train_tool {
namespace {

Image random_image(int w, int h, unsigned seed) {
    Image image;
    image.w = w;
    image.h = h;
    image.c = 3;
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> pixel(0.0f, 1.0f);
    image.data.resize(static_cast<std::size_t>(3) * w * h);
    for (float& v : image.data) v = pixel(random);
    return image;
}

const std::vector<LabelBox> kBoxes = {{1, 0.3f, 0.4f, 0.2f, 0.3f}, {0, 0.7f, 0.6f, 0.3f, 0.2f}};

TEST(DarknetAugment, SameSeedSameImageOtherSeedOther) {
    const Image image = random_image(30, 20, 1);
    const AugmentOptions options{0.2f, 0.1f, 1.5f, 1.5f};
    AugmentRandom a(7);
    AugmentRandom b(7);
    AugmentRandom c(8);
    const PreparedImage first = augment_image(image, kBoxes, 16, 16, options, a);
    const PreparedImage second = augment_image(image, kBoxes, 16, 16, options, b);
    const PreparedImage other = augment_image(image, kBoxes, 16, 16, options, c);
    EXPECT_EQ(first.pixels, second.pixels);
    EXPECT_EQ(first.truth, second.truth);
    EXPECT_NE(first.pixels, other.pixels);
    for (const float v : first.pixels) ASSERT_TRUE(v >= 0 && v <= 1);  // constrain_image
}

// jitter 0, hue 0, saturation and exposure 1, image of the input's size: the placement is the image
// itself at (0, 0); what is left is darknet's flip, which mirrors the pixels and the boxes' x.
TEST(DarknetAugment, WithoutJitterOrColourOnlyTheFlipRemains) {
    const Image image = random_image(16, 16, 2);
    const AugmentOptions options{0, 0, 1, 1};
    int flips = 0;
    for (unsigned seed = 0; seed < 8; ++seed) {
        AugmentRandom random(seed);
        const PreparedImage out = augment_image(image, kBoxes, 16, 16, options, random);
        bool same = true;
        bool mirrored = true;
        for (int c = 0; c < 3; ++c) {
            for (int y = 0; y < 16; ++y) {
                for (int x = 0; x < 16; ++x) {
                    const float v = out.pixels[(c * 16 + y) * 16 + x];
                    same = same && std::abs(v - image.at(x, y, c)) < 1e-5f;
                    mirrored = mirrored && std::abs(v - image.at(15 - x, y, c)) < 1e-5f;
                }
            }
        }
        ASSERT_TRUE(same || mirrored) << "seed " << seed;
        flips += mirrored ? 1 : 0;
        for (int k = 0; k < 2; ++k) {  // randomize_boxes may reorder: find each box by class
            const float* box = out.truth.data() + k * train::kTruthFloats;
            const LabelBox& label = kBoxes[box[4] == 1 ? 0 : 1];
            EXPECT_NEAR(box[0], mirrored ? 1 - label.x : label.x, 1e-5f);
            EXPECT_NEAR(box[1], label.y, 1e-5f);
            EXPECT_NEAR(box[2], label.w, 1e-5f);
            EXPECT_NEAR(box[3], label.h, 1e-5f);
        }
        EXPECT_EQ(out.truth[2 * train::kTruthFloats], 0.0f);  // the list ends
    }
    EXPECT_GT(flips, 0);
    EXPECT_LT(flips, 8);
}

// Boxes pushed partly outside are clipped; those left under .001 wide are dropped (correct_boxes).
TEST(DarknetAugment, ResizeOnlyClipsBoxesToTheImage) {
    const Image image = random_image(20, 10, 3);
    const PreparedImage out =
        resize_only(image, {{0, 0.95f, 0.5f, 0.3f, 0.2f}, {1, 1.0f, 0.5f, 0.0005f, 0.2f}}, 16, 16, 30);
    EXPECT_NEAR(out.truth[0], (0.8f + 1.0f) / 2, 1e-6f);
    EXPECT_NEAR(out.truth[2], 0.2f, 1e-6f);
    EXPECT_EQ(out.truth[train::kTruthFloats], 0.0f);
    EXPECT_EQ(out.pixels, resize_image(image, 16, 16).data);
}

TEST(DarknetAugment, ReadsTheCfgsOptionsWithDarknetsDefaults) {
    const AugmentOptions defaults = read_augment_options(model::parse_cfg_text("[net]\nwidth=8\n", "a.cfg"));
    EXPECT_FLOAT_EQ(defaults.jitter, 0.2f);
    EXPECT_FLOAT_EQ(defaults.hue, 0.0f);
    EXPECT_FLOAT_EQ(defaults.saturation, 1.0f);
    const AugmentOptions set = read_augment_options(
        model::parse_cfg_text("[net]\nhue=.1\nsaturation = 1.5\nexposure=2\n[region]\njitter=.3\n", "b.cfg"));
    EXPECT_FLOAT_EQ(set.hue, 0.1f);
    EXPECT_FLOAT_EQ(set.saturation, 1.5f);
    EXPECT_FLOAT_EQ(set.exposure, 2.0f);
    EXPECT_FLOAT_EQ(set.jitter, 0.3f);
    EXPECT_EQ(set.max_boxes, 30);
}

// The boxes an image keeps: the last loss layer's `max` (region 30, yolo 90 by default); the labels are
// cut there before the tiny boxes are dropped, as fill_truth_detection does.
TEST(DarknetAugment, KeepsTheLastLossLayersMaxBoxes) {
    const auto options = [](const std::string& text) {
        return read_augment_options(model::parse_cfg_text("[net]\nwidth=8\n" + text, "c.cfg"));
    };
    EXPECT_EQ(options("[yolo]\njitter=.3\n").max_boxes, 90);
    EXPECT_EQ(options("[region]\nmax=12\n[yolo]\n").max_boxes, 90);
    EXPECT_FLOAT_EQ(options("[region]\njitter=.3\n[yolo]\n").jitter, 0.2f);  // the last one's default
    EXPECT_EQ(options("[yolo]\nmax=5\n").max_boxes, 5);
    EXPECT_THROW(options("[region]\nmax=40\n"), Error);
    EXPECT_THROW(options("[yolo]\nmax=91\n"), Error);

    const Image image = random_image(20, 10, 3);
    const std::vector<LabelBox> labels = {
        {0, 0.5f, 0.5f, 0.3f, 0.2f}, {1, 0.5f, 0.5f, 0.0005f, 0.2f}, {1, 0.2f, 0.2f, 0.1f, 0.1f}};
    const PreparedImage cut = resize_only(image, labels, 16, 16, 2);
    EXPECT_NE(cut.truth[0], 0.0f);
    EXPECT_EQ(cut.truth[train::kTruthFloats], 0.0f) << "the third box is past max, the second too small";
    EXPECT_NE(resize_only(image, labels, 16, 16, 3).truth[train::kTruthFloats], 0.0f);
    std::vector<LabelBox> many(100, labels[0]);
    const PreparedImage full = resize_only(image, many, 16, 16, 90);
    EXPECT_NE(full.truth[89 * train::kTruthFloats], 0.0f);
    EXPECT_EQ(full.truth.size(), static_cast<std::size_t>(train::kMaxTruthBoxes) * train::kTruthFloats);
}

}  // namespace
}  // namespace fpgacnn::train_tool

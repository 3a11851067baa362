// Classifier (fpgacnn/classifier.hpp): darknet's top_k order, the refusals between detectors and
// classifiers, and darknet19 in fixed point against the float path on darknet's sample images
// (synthetic weights: the labels mean nothing, the agreement of the rankings does).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "error_message.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/classifier.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "pipeline_test_support.hpp"

namespace fpgacnn::test {
namespace {

using ::testing::HasSubstr;

TEST(TopClasses, DarknetOrderLowerIndexFirstOnTies) {
    const std::vector<float> p = {0.1f, 0.3f, 0.05f, 0.3f, 0.25f};
    const std::vector<Classification> top = top_classes(p, 3, {"a", "b", "c"});
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0].class_id, 1);
    EXPECT_EQ(top[0].label, "b");
    EXPECT_EQ(top[1].class_id, 3);
    EXPECT_EQ(top[1].label, "class_3");  // beyond the labels
    EXPECT_EQ(top[2].class_id, 4);
    EXPECT_FLOAT_EQ(top[2].probability, 0.25f);
    EXPECT_EQ(top_classes(p, 10, {}).size(), 5u);  // capped at the count
}

const Network& darknet19() {
    static const Network network = [] {
        Network n = load_darknet_cfg(darknet_file("cfg/darknet19.cfg"), InputSizeOverride{64, 64});
        fill_synthetic_weights(n, 19);
        fold_batchnorm(n);
        return n;
    }();
    return network;
}

TEST(Classifier, DetectorsAndClassifiersRefuseEachOther) {
    const std::string as_detector = error_message([] { Detector(darknet19(), {}, DetectorOptions{}); });
    EXPECT_THAT(as_detector, HasSubstr("is a classifier"));
    EXPECT_THAT(as_detector, HasSubstr("fpgacnn-classify"));
    Network detector = tiny_network();
    fold_batchnorm(detector);
    const std::string as_classifier = error_message([&] { Classifier(detector, {}, ClassifierOptions{}); });
    EXPECT_THAT(as_classifier, HasSubstr("is not a classifier"));
    ClassifierOptions no_top;
    no_top.top = 0;
    EXPECT_THAT(error_message([&] { Classifier(darknet19(), {}, no_top); }), HasSubstr("top"));
}

// int16 and int8 (CPU) against float on darknet's sample images: the top-1 class and how many of the
// top 5 agree, measured and printed; int16 must keep the top-1 on every image.
TEST(Classifier, FixedPointKeepsTheFloatRanking) {
    const std::vector<std::string> images = {"dog.jpg", "eagle.jpg", "giraffe.jpg", "person.jpg"};
    std::vector<std::string> paths;
    for (const std::string& image : images) paths.push_back(darknet_file("data/" + image));
    ClassifierOptions float_options;
    float_options.backend.device = "cpu";
    float_options.backend.precision = Precision::Float;
    Classifier reference(darknet19(), {}, float_options);
    for (const Precision precision : {Precision::Int16, Precision::Int8}) {
        CalibrationOptions calibration;
        if (precision == Precision::Int8) calibration.widths = uniform_conv_widths(darknet19(), 8);
        ClassifierOptions options;
        options.backend.device = "cpu";
        options.backend.precision = precision;
        options.backend.quantized =
            std::make_shared<const QuantizedNetwork>(calibrate(darknet19(), paths, calibration).quantized);
        Classifier fixed(darknet19(), {}, options);
        int same_top1 = 0;
        int top5_shared = 0;
        for (const std::string& path : paths) {
            const Image image = load_image(path);
            const ClassificationResult want = reference.classify(image);
            const ClassificationResult got = fixed.classify(image);
            ASSERT_EQ(got.top.size(), 5u);
            same_top1 += got.top[0].class_id == want.top[0].class_id;
            for (const Classification& c : got.top) {
                top5_shared += std::any_of(want.top.begin(), want.top.end(),
                                           [&](const Classification& w) { return w.class_id == c.class_id; });
            }
        }
        std::cout << "[ measured ] darknet19 64 synthetic, " << precision_name(precision) << " vs float on "
                  << paths.size() << " images: top-1 equal on " << same_top1 << ", top-5 shared "
                  << top5_shared << " of " << 5 * paths.size() << "\n";
        if (precision == Precision::Int16) {
            EXPECT_EQ(same_top1, static_cast<int>(paths.size()));
            EXPECT_GE(top5_shared, static_cast<int>(4 * paths.size()));
        }
    }
}

}  // namespace
}  // namespace fpgacnn::test

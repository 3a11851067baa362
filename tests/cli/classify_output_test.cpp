// fpgacnn-classify end to end on a small classifier cfg with synthetic weights: the text lines as
// darknet's predict_classifier prints them, --json with the top classes in order, the float and int16
// paths agreeing on the top class, and the refusals (a detector cfg, no weights).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_files.hpp"
#include "fpgacnn/darknet.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

using ::testing::HasSubstr;

struct ClassifierFiles {
    std::string cfg, weights, labels;
};

const ClassifierFiles& classifier_files() {
    static const ClassifierFiles f = [] {
        ClassifierFiles x;
        const std::string dir = scratch_dir("cli_classify");
        x.cfg = dir + "/small_classifier.cfg";
        std::ofstream(x.cfg)
            << "[net]\nwidth=32\nheight=32\nchannels=3\n\n"
               "[convolutional]\nbatch_normalize=1\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n"
               "[maxpool]\nsize=2\nstride=2\n\n"
               "[convolutional]\nfilters=7\nsize=1\nactivation=linear\n\n"
               "[avgpool]\n\n[softmax]\ngroups=1\n";
        x.weights = dir + "/small_classifier.weights";
        Network network = load_darknet_cfg(x.cfg);
        fill_synthetic_weights(network, 4);
        save_darknet_weights(network, x.weights);
        x.labels = dir + "/labels.txt";
        std::ofstream(x.labels) << "zero\none\ntwo\nthree\nfour\nfive\nsix\n";
        return x;
    }();
    return f;
}

std::string classify(const std::string& flags, int* code, std::string* err = nullptr) {
    const ClassifierFiles& f = classifier_files();
    std::string out, error;
    *code = run_command(app_path("classify", "fpgacnn-classify") + " -q --cfg " + f.cfg + " " + flags, &out,
                        &error);
    if (err != nullptr) *err = error;
    return out;
}

TEST(ClassifyOutput, TextJsonAndPrecisionsAgree) {
    const ClassifierFiles& f = classifier_files();
    const std::string image = darknet_file("data/dog.jpg");
    int code = 0;
    const std::string text =
        classify("--weights " + f.weights + " --labels " + f.labels + " --top 3 " + image, &code);
    ASSERT_EQ(code, 0) << text;
    EXPECT_THAT(text, HasSubstr(image + ": classified in "));
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    int printed = 0;
    while (std::getline(lines, line)) {
        EXPECT_THAT(line, testing::MatchesRegex("[ 0-9][0-9]\\.[0-9][0-9]%: [a-z]+")) << line;
        ++printed;
    }
    EXPECT_EQ(printed, 3);

    const std::string json =
        classify("--weights " + f.weights + " --labels " + f.labels + " --json " + image, &code);
    ASSERT_EQ(code, 0) << json;
    const nlohmann::json result = nlohmann::json::parse(json);
    EXPECT_EQ(result["image"], image);
    ASSERT_EQ(result["top"].size(), 5u);
    for (std::size_t i = 1; i < 5; ++i) {
        EXPECT_GE(result["top"][i - 1]["probability"].get<double>(),
                  result["top"][i]["probability"].get<double>());
    }
    const std::string int16 = classify("--weights " + f.weights + " --labels " + f.labels +
                                           " --json --device cpu --precision int16 " + image,
                                       &code);
    ASSERT_EQ(code, 0) << int16;
    EXPECT_EQ(nlohmann::json::parse(int16)["top"][0]["class_id"], result["top"][0]["class_id"]);
}

TEST(ClassifyOutput, RefusesDetectorsAndMissingWeights) {
    std::string out, err;
    // The CLI tests' toy detector (a [region] output): named, with the tool to use instead.
    int code = run_command(app_path("classify", "fpgacnn-classify") + " --cfg " + files().cfg +
                               " --weights " + files().weights + " " + darknet_file("data/dog.jpg"),
                           &out, &err);
    EXPECT_EQ(code, 1);
    EXPECT_THAT(err, HasSubstr("is not a classifier"));
    EXPECT_THAT(err, HasSubstr("fpgacnn-detect"));
    classify(darknet_file("data/dog.jpg"), &code, &err);
    EXPECT_EQ(code, 2);  // no --weights and no --quantized: a command-line error
    EXPECT_THAT(err, HasSubstr("--weights"));
}

}  // namespace
}  // namespace fpgacnn::test

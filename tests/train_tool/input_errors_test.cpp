// fpgacnn-train's errors for bad input name the file (and line) and say what to do.
#include <gtest/gtest.h>

#include <fstream>

#include "../../apps/common/exit_codes.hpp"
#include "label_file.hpp"
#include "train_tool_fixture.hpp"

namespace fpgacnn::train_tool::test {
namespace {

void write(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(TrainToolErrors, MalformedLabelLineNamesFileAndLine) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_bad_label");
    write(set.dir + "/image1.txt", "0 0.5 0.5 0.2 0.2\n1 0.5 oops 0.2 0.2\n");
    const std::string error = training_error(tiny_options(set, "bad", 1));
    EXPECT_TRUE(has(error, "image1.txt:2:")) << error;
    EXPECT_TRUE(has(error, "five numbers")) << error;
}

TEST(TrainToolErrors, ClassOutOfRange) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_bad_class");
    write(set.dir + "/image0.txt", "\n2 0.5 0.5 0.2 0.2\n");
    const std::string error = training_error(tiny_options(set, "bad", 1));
    EXPECT_TRUE(has(error, "image0.txt:2:")) << error;
    EXPECT_TRUE(has(error, "2 classes")) << error;
}

TEST(TrainToolErrors, MissingImageNamesTheListLine) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_missing_image");
    write(set.list, "image0.png\n\nnot-there.jpg\n");
    const std::string error = training_error(tiny_options(set, "bad", 1));
    EXPECT_TRUE(has(error, "train.txt:3:")) << error;
    EXPECT_TRUE(has(error, "not-there.jpg does not exist")) << error;
}

TEST(TrainToolErrors, MissingLabelFileListsWhereItLooked) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_missing_label");
    std::remove((set.dir + "/image0.txt").c_str());
    const std::string error = training_error(tiny_options(set, "bad", 1));
    EXPECT_TRUE(has(error, "image0.txt")) << error;
    EXPECT_TRUE(has(error, "--distill")) << error;
}

TEST(TrainToolErrors, RefusesACfgTheTrainerCannotTrain) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_bad_cfg");
    std::string cfg = tiny_cfg_text();
    cfg.replace(cfg.find("activation=leaky"), 16, "activation=mish");
    write(set.cfg, cfg);
    const std::string error = training_error(tiny_options(set, "bad", 1));
    EXPECT_TRUE(has(error, "mish")) << error;
}

TEST(TrainToolErrors, DistillNeedsWeights) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_distill");
    TrainOptions options = tiny_options(set, "bad", 1);
    options.data.clear();
    options.distill = set.dir;
    options.weights.clear();
    EXPECT_THROW(train(options), apps::CommandLineError);
}

TEST(LabelFile, DarknetsPathRuleAfterTheFileBesideTheImage) {
    const std::vector<std::string> candidates = label_path_candidates("/data/images/train/a.jpg");
    ASSERT_EQ(candidates.size(), 2U);
    EXPECT_EQ(candidates[0], "/data/images/train/a.txt");
    EXPECT_EQ(candidates[1], "/data/labels/train/a.txt");
    EXPECT_EQ(label_path_candidates("/voc/JPEGImages/b.JPEG")[1], "/voc/labels/b.txt");
}

}  // namespace
}  // namespace fpgacnn::train_tool::test

// fpgacnn-train --device: the tool learns with its conv layers' BP and WG on the emu device, reports
// the phases' command statistics, and refuses devices it cannot train on, naming them.
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"
#include "train_tool_fixture.hpp"

namespace fpgacnn::train_tool::test {
namespace {

std::vector<double> logged_losses(const std::string& log) {
    std::vector<double> losses;
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line)) losses.push_back(nlohmann::json::parse(line)["loss"].get<double>());
    return losses;
}

// The tool itself (not run_training): what a user runs.
TEST(TrainToolDevice, OverfitsOneBatchWithBackwardOnTheEmu) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_device_overfit");
    const TrainOptions options = tiny_options(set, "emu", 150);
    std::string out, err;
    const std::string command = fpgacnn::test::app_path("train", "fpgacnn-train") +
                                " --device emu --no-augment --cfg " + set.cfg + " --weights " + set.weights +
                                " --data " + set.list + " --max-batches 150 --out " + options.out +
                                " --log " + options.log;
    ASSERT_EQ(fpgacnn::test::run_command(command, &out, &err), 0) << err;
    const std::vector<double> losses = logged_losses(options.log);
    ASSERT_EQ(losses.size(), 150U) << err;
    std::printf("fpgacnn-train --device emu on one batch: loss %.4f -> %.4f after 150 iterations\n",
                losses.front(), losses.back());
    EXPECT_LT(losses.back(), losses.front() / 10);
    // The phase report: both phases ran through the emu's queue and moved bytes.
    EXPECT_NE(err.find("BP/WG on emu"), std::string::npos) << err;
    EXPECT_NE(err.find("\nBP "), std::string::npos) << err;
    EXPECT_NE(err.find("\nWG "), std::string::npos) << err;
}

// The CPU twin and the emu train to the same bits (with augmentation: every pass another batch), and
// both differ from float.
TEST(TrainToolDevice, CpuFixedTrainsToTheEmusBits) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_device_twin");
    std::vector<std::string> outputs;
    for (const char* device : {"emu", "cpu-fixed", "cpu"}) {
        TrainOptions options = tiny_options(set, device, 3);
        options.device = device;
        train(options);
        outputs.push_back(file_bytes(options.out));
    }
    ASSERT_FALSE(outputs[0].empty());
    EXPECT_EQ(outputs[0], outputs[1]);
    EXPECT_NE(outputs[0], outputs[2]);
}

TEST(TrainToolDevice, UnknownDeviceNamesTheValues) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_device_unknown");
    TrainOptions options = tiny_options(set, "unknown", 1);
    options.device = "gpu";
    const std::string error = training_error(options);
    EXPECT_NE(error.find("--device 'gpu'"), std::string::npos) << error;
    EXPECT_NE(error.find("cpu, cpu-fixed, emu"), std::string::npos) << error;
}

}  // namespace
}  // namespace fpgacnn::train_tool::test

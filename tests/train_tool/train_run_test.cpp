// fpgacnn-train's training loop: the step it takes is FloatTrainer's, it learns, a resumed run ends
// where an uninterrupted one does, and an interrupt leaves a checkpoint and no --out.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <cstdio>
#include <fstream>

#include <nlohmann/json.hpp>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/vision.hpp"
#include "label_file.hpp"
#include "model/cfg_parser.hpp"
#include "test_paths.hpp"
#include "train/float_trainer.hpp"
#include "train/region_loss.hpp"
#include "train_tool_fixture.hpp"

namespace fpgacnn::train_tool::test {
namespace {

bool exists(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0;
}

std::vector<float> all_parameters(const Network& network) {
    std::vector<float> values;
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& conv = layer.conv();
        for (const auto* array :
             {&conv.biases, &conv.bn_scales, &conv.bn_mean, &conv.bn_variance, &conv.weights})
            values.insert(values.end(), array->begin(), array->end());
    }
    return values;
}

// The first iteration with --no-augment: both images resized with resize_image, their boxes as the
// label files say (through darknet's edge arithmetic; every box here lies inside the image), two train_batch
// calls (subdivisions=2) of FloatTrainer.
TEST(TrainTool, NoAugmentStepIsTheFloatTrainersStep) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_step");
    TrainOptions options = tiny_options(set, "step", 1);
    options.no_augment = true;
    train(options);

    Network network = load_darknet_cfg(set.cfg);
    load_darknet_weights(network, set.weights);
    train::FloatTrainer trainer(std::move(network),
                                train::read_training_options(model::read_cfg_file(set.cfg)));
    const int size = 16;
    for (int pass = 0; pass < 2; ++pass) {  // subdivisions=2 passes of batch 2: image0, image1 each time
        std::vector<float> input;
        std::vector<float> truth(2 * train::kMaxTruthBoxes * train::kTruthFloats, 0.0f);
        for (int b = 0; b < 2; ++b) {
            const std::string stem = set.dir + "/image" + std::to_string(b);
            const Image resized = resize_image(load_image(stem + ".png"), size, size);
            input.insert(input.end(), resized.data.begin(), resized.data.end());
            const std::vector<LabelBox> boxes = read_label_file(stem + ".txt", 2);
            for (std::size_t k = 0; k < boxes.size(); ++k) {
                float* at = truth.data() + (b * train::kMaxTruthBoxes + k) * train::kTruthFloats;
                // darknet's fill_truth_detection turns every box into edges and back (correct_boxes).
                const LabelBox& box = boxes[k];
                const float left = box.x - box.w / 2, right = box.x + box.w / 2;
                const float top = box.y - box.h / 2, bottom = box.y + box.h / 2;
                at[0] = (left + right) / 2, at[1] = (top + bottom) / 2, at[2] = right - left,
                at[3] = bottom - top;
                at[4] = static_cast<float>(boxes[k].class_id);
            }
        }
        trainer.train_batch(input.data(), truth.data());
    }
    Network written = load_darknet_cfg(set.cfg);
    load_darknet_weights(written, options.out);
    const std::vector<float> ours = all_parameters(written);
    const std::vector<float> expected = all_parameters(trainer.network());
    ASSERT_EQ(ours.size(), expected.size());
    ASSERT_NE(all_parameters(written), [&] {
        Network start = load_darknet_cfg(set.cfg);
        load_darknet_weights(start, set.weights);
        return all_parameters(start);
    }()) << "the step changed nothing";
    for (std::size_t i = 0; i < ours.size(); ++i) ASSERT_EQ(ours[i], expected[i]) << "parameter " << i;
}

TEST(TrainTool, OverfitsOneBatch) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_overfit");
    TrainOptions options = tiny_options(set, "overfit", 150);
    options.no_augment = true;
    const TrainOutcome outcome = train(options);
    ASSERT_EQ(outcome.iterations.size(), 150U);
    const double first = outcome.iterations.front().loss;
    const double last = outcome.iterations.back().loss;
    std::printf("fpgacnn-train on one batch: loss %.4f -> %.4f after 150 iterations\n", first, last);
    EXPECT_LT(last, first / 10);
    // The JSON log: one object an iteration, as the outcome says.
    std::ifstream log(options.log);
    std::string line;
    int rows = 0;
    while (std::getline(log, line)) {
        const nlohmann::json row = nlohmann::json::parse(line);
        EXPECT_EQ(row["iteration"].get<int>(), rows + 1);
        EXPECT_DOUBLE_EQ(row["loss"].get<double>(), outcome.iterations[rows].loss);
        EXPECT_TRUE(row.contains("rate") && row.contains("seconds"));
        ++rows;
    }
    EXPECT_EQ(rows, 150);
    // steps=2, scales=.5: the rate halves from iteration 2 on.
    EXPECT_FLOAT_EQ(static_cast<float>(outcome.iterations[0].rate), 0.01f);
    EXPECT_FLOAT_EQ(static_cast<float>(outcome.iterations[5].rate), 0.005f);
}

// With augmentation (its generator and the data position are in the checkpoint too).
TEST(TrainTool, ResumedRunEndsWhereAnUninterruptedOneDoes) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_resume");
    const ResumeRuns runs = train_whole_and_resumed(4, 2, [&](const std::string& stem, int iterations) {
        TrainOptions options = tiny_options(set, stem, iterations);
        options.seed = 9;
        options.plot = set.dir + "/" + stem + ".png";
        return options;
    });
    EXPECT_EQ(runs.resumed_outcome.start_iteration, 2U);
    EXPECT_EQ(runs.resumed_outcome.iterations.size(), 2U);
    EXPECT_EQ(file_bytes(runs.resumed.out), file_bytes(runs.whole.out));
    EXPECT_NE(file_bytes(runs.first_half.out), file_bytes(runs.whole.out));
    EXPECT_TRUE(exists(runs.whole.plot));
    // Without the momentum and data position (a run continued from the half's .weights, at its
    // `seen`) it differs.
    TrainOptions restarted = tiny_options(set, "restarted", 4);
    restarted.seed = 9;
    restarted.weights = runs.first_half.out;
    train(restarted);
    EXPECT_NE(file_bytes(restarted.out), file_bytes(runs.whole.out));
}

// adam=1: Adam's moments and its update count t (the bias correction) are in the checkpoint too. The
// Adam run differs from the SGD one.
TEST(TrainTool, ResumedAdamRunEndsWhereAnUninterruptedOneDoes) {
    std::string cfg = tiny_cfg_text();
    cfg.insert(cfg.find("[net]\n") + 6, "adam=1\n");
    const TinyTrainingSet set = make_tiny_training_set("train_tool_adam_resume", 20, cfg);
    const ResumeRuns runs = train_whole_and_resumed(6, 3, [&](const std::string& stem, int iterations) {
        TrainOptions options = tiny_options(set, stem, iterations);
        options.seed = 3;
        return options;
    });
    EXPECT_EQ(file_bytes(runs.resumed.out), file_bytes(runs.whole.out));
    // Restarted from the half's weights, t begins at 1 again and the moments at 0: another result.
    TrainOptions restarted = tiny_options(set, "restarted", 6);
    restarted.seed = 3;
    restarted.weights = runs.first_half.out;
    train(restarted);
    EXPECT_NE(file_bytes(restarted.out), file_bytes(runs.whole.out));
    const TinyTrainingSet sgd_set = make_tiny_training_set("train_tool_adam_vs_sgd");
    TrainOptions sgd = tiny_options(sgd_set, "sgd", 6);
    sgd.seed = 3;
    train(sgd);
    Network adam_weights = load_darknet_cfg(set.cfg), sgd_weights = load_darknet_cfg(sgd_set.cfg);
    load_darknet_weights(adam_weights, runs.whole.out);
    load_darknet_weights(sgd_weights, sgd.out);
    EXPECT_NE(all_parameters(adam_weights), all_parameters(sgd_weights));
}

TEST(TrainTool, InterruptWritesTheCheckpointAndNoOutput) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_interrupt");
    TrainOptions options = tiny_options(set, "stopped", 3);
    const std::atomic<bool> stop{true};
    const TrainOutcome outcome = run_training(options, stop);
    EXPECT_TRUE(outcome.interrupted);
    EXPECT_TRUE(exists(options.checkpoint_path()));
    EXPECT_FALSE(exists(options.out));
}

// The tool itself under Ctrl-C: SIGINT once the first iteration is logged; it ends with 130, the
// checkpoint written and no --out (not even a temporary file beside it).
TEST(TrainTool, SigintWritesTheCheckpointAndExits) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_sigint");
    const TrainOptions options = tiny_options(set, "sigint", 100000000);
    const std::string command = fpgacnn::test::app_path("train", "fpgacnn-train") + " -q --cfg " + set.cfg +
                                " --weights " + set.weights + " --data " + set.list +
                                " --max-batches 100000000 --out " + options.out + " --log " + options.log +
                                " & pid=$!; while [ ! -s " + options.log +
                                " ]; do sleep 0.05; done; kill -INT $pid; wait $pid; echo $?";
    std::string out;
    std::string err;
    ASSERT_EQ(fpgacnn::test::run_command("bash -c '" + command + "'", &out, &err), 0) << err;
    EXPECT_EQ(out, "130\n") << err;
    EXPECT_NE(err.find("--resume " + options.checkpoint_path()), std::string::npos) << err;
    EXPECT_TRUE(exists(options.checkpoint_path()));
    EXPECT_FALSE(exists(options.out));
    std::string left;
    fpgacnn::test::run_command("ls " + set.dir + " | grep tmp- || true", &left);
    EXPECT_EQ(left, "");
}

// darknet's header: version 0.2 and `seen` (images trained on) as a 64-bit count.
TEST(TrainTool, WritesSeenInTheHeader) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_seen");
    const TrainOptions options = tiny_options(set, "seen", 3);
    train(options);
    const std::string bytes = file_bytes(options.out);
    ASSERT_GE(bytes.size(), 20U);
    std::uint64_t seen = 0;
    for (int i = 0; i < 8; ++i)
        seen |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[12 + i])) << (8 * i);
    EXPECT_EQ(seen, 12U);  // 3 iterations of batch 4
    EXPECT_EQ(bytes[4], 2);

    // Started from that file, training continues at its iteration (darknet's train_detector) ...
    TrainOptions continued = tiny_options(set, "continued", 5);
    continued.weights = options.out;
    const TrainOutcome more = train(continued);
    EXPECT_EQ(more.start_iteration, 3U);
    ASSERT_EQ(more.iterations.size(), 2U);
    EXPECT_EQ(more.iterations.back().images, 20U);
    // ... or from 0 with --clear; --iterations bounds the run.
    continued.clear = true;
    continued.iterations = 1;
    const TrainOutcome cleared = train(continued);
    EXPECT_EQ(cleared.start_iteration, 0U);
    ASSERT_EQ(cleared.iterations.size(), 1U);
    EXPECT_EQ(cleared.iterations.back().images, 4U);
}

}  // namespace
}  // namespace fpgacnn::train_tool::test

// fpgacnn-train --qat: the .fq16 it writes loads for the .weights it writes (the fingerprints of the
// fixed-point paths' loader) and runs there exactly as the quantization-aware training's forward
// computed it; the loss falls; --holdout scores before and after.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "../../apps/common/exit_codes.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/equalization.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "model/cfg_parser.hpp"
#include "qat_session.hpp"
#include "train/fake_quant.hpp"
#include "train/float_trainer.hpp"
#include "train_tool_fixture.hpp"

namespace fpgacnn::train_tool::test {
namespace {

std::vector<float> conv_weights(const Network& network) {
    std::vector<float> all;
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        all.insert(all.end(), layer.conv().weights.begin(), layer.conv().weights.end());
        all.insert(all.end(), layer.conv().biases.begin(), layer.conv().biases.end());
    }
    return all;
}

Network weights_file(const std::string& cfg, const std::string& weights) {
    Network network = load_darknet_cfg(cfg);
    load_darknet_weights(network, weights);
    return network;
}

// --qat-validate: every scoring is recorded (the start, then every N iterations), and the weights
// written are those of the best-scoring iteration: the same as a run stopped at that iteration.
TEST(TrainToolQat, ValidationWritesTheBestIterationsWeights) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_qat_validate");
    TrainOptions validated = tiny_options(set, "validated", 6);
    validated.no_augment = true;
    validated.qat = "int8";
    validated.qat_loss = "labels";
    validated.qat_validate = {set.dir + "/image1.png"};
    validated.qat_validate_every = 2;
    validated.log = set.dir + "/validated.jsonl";
    validated.plot = set.dir + "/validated.png";
    const TrainOutcome outcome = train(validated);
    ASSERT_EQ(outcome.validation.size(), 4U);  // iterations 0, 2, 4, 6
    EXPECT_EQ(outcome.validation_images, 1U);
    for (std::size_t k = 0; k < outcome.validation.size(); ++k) {
        EXPECT_EQ(outcome.validation[k].iteration, 2 * k);
        // One float model on one image: the same reference detections every time.
        EXPECT_EQ(outcome.validation[k].float_detections, outcome.validation[0].float_detections);
        EXPECT_LE(outcome.validation[k].kept, outcome.validation[k].float_detections);
    }
    // The JSON log holds each scoring as a "validation" object beside the iterations' records.
    std::ifstream log(validated.log);
    std::vector<std::uint64_t> logged;
    for (std::string line; std::getline(log, line);) {
        const nlohmann::json row = nlohmann::json::parse(line);
        if (row.contains("validation")) logged.push_back(row["validation"]["iteration"].get<std::uint64_t>());
    }
    EXPECT_EQ(logged, (std::vector<std::uint64_t>{0, 2, 4, 6}));
    // The plot grows a validation panel under the loss's.
    EXPECT_EQ(cv::imread(validated.plot).rows, 890);
    ASSERT_TRUE(outcome.validation_best.has_value());
    const ValidationScore& best = *outcome.validation_best;
    for (const ValidationScore& score : outcome.validation) {
        EXPECT_FALSE(scores_above(score, best))
            << "iteration " << score.iteration << " scored above the kept " << best.iteration;
    }

    // Iteration 0: the start as --qat trains it (batch-norm folded) and writes it (unfolded as identity).
    std::vector<float> expected = conv_weights(
        unfold_for_cfg(fold_for_qat(weights_file(set.cfg, set.weights)), load_darknet_cfg(set.cfg)));
    if (best.iteration > 0) {
        TrainOptions stopped = validated;
        stopped.out = set.dir + "/stopped.weights";
        stopped.qat_out.clear();
        stopped.checkpoint.clear();
        stopped.qat_validate.clear();
        stopped.iterations = static_cast<int>(best.iteration);
        train(stopped);
        expected = conv_weights(weights_file(set.cfg, stopped.out));
    }
    EXPECT_EQ(conv_weights(weights_file(set.cfg, validated.out)), expected)
        << "kept iteration " << best.iteration;
}

TEST(TrainToolQat, ValidationRanksByKeptAtHalfThenAtAQuarter) {
    const auto score = [](int kept, int kept_low) {
        ValidationScore s;
        s.kept = kept;
        s.float_detections = 10;
        s.kept_low = kept_low;
        s.float_detections_low = 20;
        return s;
    };
    EXPECT_TRUE(scores_above(score(8, 0), score(7, 20)));    // 0.5 decides
    EXPECT_TRUE(scores_above(score(7, 15), score(7, 14)));   // then 0.25
    EXPECT_FALSE(scores_above(score(7, 14), score(7, 14)));  // a tie keeps the earlier
    EXPECT_FALSE(scores_above(score(6, 20), score(7, 0)));
}

std::string command_line_error(const TrainOptions& options) {
    try {
        train(options);
    } catch (const std::exception& e) {  // apps::CommandLineError: exit code 2
        return e.what();
    }
    return "";
}

/// The .fq16 of a --qat run loads for its .weights as fpgacnn-detect loads them (load_darknet_model
/// folds the batch-norm: the fingerprint of those weights is checked), is at `precision`, and the
/// fixed-point engine on it computes every layer's output as QAT's forward does with its exponents.
void expect_engine_runs_as_trained(const TinyTrainingSet& set, const TrainOptions& options,
                                   Precision precision) {
    ASSERT_EQ(options.qat_out_path(), set.dir + "/qat.fq16");
    auto quantized = std::make_shared<QuantizedNetwork>(
        load_quantized_network(options.qat_out_path(), load_darknet_model(set.cfg, options.out)));
    EXPECT_EQ(precision_of_widths(*quantized), precision);

    // The fixed-point engine on that file computes what QAT's forward computes with its exponents.
    Network trained = load_darknet_cfg(set.cfg);
    load_darknet_weights(trained, options.out);
    trained = fold_for_qat(std::move(trained));
    train::FloatTrainer trainer(trained, train::read_training_options(model::read_cfg_file(set.cfg)));
    train::FakeQuantizer quantizer(trainer.network());
    quantizer.set_plan(*quantized);
    trainer.set_fake_quantizer(&quantizer);
    std::vector<float> images(trained.input.size() * trainer.batch());
    for (std::size_t k = 0; k < images.size(); ++k) images[k] = static_cast<float>(k % 97) / 97.0f;
    std::vector<float> truth(trainer.batch() * train::kMaxTruthBoxes * train::kTruthFloats, 0.0f);
    truth[0] = truth[1] = 0.5f;
    truth[2] = truth[3] = 0.3f;
    trainer.forward(images.data(), truth.data(), 1);

    BackendOptions cpu;
    cpu.device = "cpu";
    cpu.precision = precision;
    cpu.quantized = quantized;
    cpu.keep_layer_outputs = true;
    const std::unique_ptr<Backend> engine = make_backend(quantized->network, cpu);
    for (int b = 0; b < trainer.batch(); ++b) {
        engine->run(images.data() + b * trained.input.size());
        for (const Layer& layer : trained.layers) {
            const std::vector<float> expected = engine->layer_output(layer.index);
            const float* got = trainer.output(layer.index).data() + b * layer.output.size();
            EXPECT_TRUE(std::equal(expected.begin(), expected.end(), got))
                << "image " << b << ", layer " << layer.index;
        }
    }
}

TEST(TrainToolQat, Int8FixedPointModelRunsAsTrained) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_qat");
    TrainOptions options = tiny_options(set, "qat", 60);
    options.no_augment = true;
    options.qat = "int8";
    options.qat_loss = "labels";  // the labelled boxes: one batch over-fits
    options.qat_recalibrate = 20;
    options.holdout = {set.dir + "/image1.png"};
    const TrainOutcome outcome = train(options);
    ASSERT_EQ(outcome.iterations.size(), 60U);
    const double first = outcome.iterations.front().loss;
    const double last = outcome.iterations.back().loss;
    std::printf("fpgacnn-train --qat int8 on one batch: loss %.4f -> %.4f after 60 iterations\n", first,
                last);
    EXPECT_LT(last, first / 2);
    ASSERT_TRUE(outcome.holdout_before && outcome.holdout_after);
    EXPECT_EQ(outcome.holdout_images, 1U);
    EXPECT_EQ(outcome.holdout_after->agreement.size(), 2U);

    expect_engine_runs_as_trained(set, options, Precision::Int8);
}

// --qat-equalize: training starts from the equalized weights, and the files written are that model's.
// At rate 0 the weights do not move, so what is written is the equalization of the start itself.
TEST(TrainToolQat, EqualizeStartsFromTheEqualizedWeights) {
    std::string cfg = tiny_cfg_text();
    cfg.replace(cfg.find("learning_rate=0.01"), 18, "learning_rate=0");
    const TinyTrainingSet set = make_tiny_training_set("train_tool_qat_equalize", 20, cfg);
    TrainOptions options = tiny_options(set, "qat", 2);
    options.no_augment = true;
    options.qat = "int8";
    options.qat_equalize = true;
    train(options);

    Network expected = fold_for_qat(load_darknet_model(set.cfg, set.weights));
    const std::vector<EqualizedPair> pairs = equalize_conv_ranges(expected);
    ASSERT_EQ(pairs.size(), 2U);  // conv 0 -> maxpool -> conv 2 -> maxpool -> the head's conv
    for (const EqualizedPair& pair : pairs) EXPECT_LT(pair.first_ratio_after, pair.first_ratio_before);
    const Network written = fold_for_qat(load_darknet_model(set.cfg, options.out));
    for (const Layer& layer : written.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        // The written batch-norm (scale 1, variance 1) folds back as 1 / (1 + 1e-6): qat_session.hpp.
        const std::vector<float>& want =
            expected.layers[static_cast<std::size_t>(layer.index)].conv().weights;
        const std::vector<float>& got = layer.conv().weights;
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t k = 0; k < got.size(); ++k)
            ASSERT_NEAR(got[k], want[k], 1e-5 * std::max(1.0f, std::fabs(want[k]))) << "conv " << layer.index;
    }
    expect_engine_runs_as_trained(set, options, Precision::Int8);
}

/// A tiny set (scratch folder `name`) of `cfg` at a rate below the tiny cfgs' 0.01, which makes the
/// dense teacher loss over every output diverge.
TinyTrainingSet teacher_set(const std::string& name, std::string cfg) {
    cfg.replace(cfg.find("learning_rate=0.01"), 18, "learning_rate=0.0005");
    return make_tiny_training_set(name, 20, cfg);
}

/// Options of a --qat int8 run with the teacher loss for `iterations` on `set`.
TrainOptions teacher_options(const TinyTrainingSet& set, int iterations) {
    TrainOptions options = tiny_options(set, "qat", iterations);
    options.no_augment = true;
    options.qat = "int8";
    return options;
}

// --qat-loss teacher: the distance to the float model's region outputs falls. The exponents stay those
// of the start: a recalibration moves the 8-bit grids and with them the distance's floor (measured on
// these images: 0.0167 before the one at iteration 40, 0.0281 after), which is not what this tests.
TEST(TrainToolQat, TeacherLossFalls) {
    TrainOptions options = teacher_options(teacher_set("train_tool_qat_teacher", tiny_cfg_text()), 60);
    options.qat_recalibrate = 1000;
    const TrainOutcome outcome = train(options);
    ASSERT_EQ(outcome.iterations.size(), 60U);
    const double first = outcome.iterations.front().loss;
    const double last = outcome.iterations.back().loss;
    std::printf("fpgacnn-train --qat int8 --qat-loss teacher: loss %.5f -> %.5f after 60 iterations\n", first,
                last);
    EXPECT_LT(last, 0.9 * first);  // measured: 0.0217 -> 0.0162; 8-bit noise is the floor
}

// YOLOv3-style heads: --qat-loss teacher over both [yolo] heads, and the fixed-point engine runs the
// written model (upsample, route of two grids, the heads) as the training's forward did.
TEST(TrainToolQat, YoloHeadsRunAsTrained) {
    const TinyTrainingSet set = teacher_set("train_tool_qat_yolo", tiny_yolo_cfg_text());
    TrainOptions options = teacher_options(set, 20);
    const TrainOutcome outcome = train(options);
    ASSERT_EQ(outcome.iterations.size(), 20U);
    std::printf("fpgacnn-train --qat int8 --qat-loss teacher, two [yolo] heads: loss %.5f -> %.5f\n",
                outcome.iterations.front().loss, outcome.iterations.back().loss);
    expect_engine_runs_as_trained(set, options, Precision::Int8);
}

// --qat-score-weight on both heads of a [yolo] net: the term adds to the loss and changes the step.
TEST(TrainToolQat, ScoreWeightTrainsYoloHeads) {
    const TinyTrainingSet set = teacher_set("train_tool_qat_yolo_score", tiny_yolo_cfg_text());
    const TrainOptions plain = teacher_options(set, 2);
    const TrainOutcome without = train(plain);
    TrainOptions scored = teacher_options(set, 2);
    scored.out = set.dir + "/scored.weights";
    scored.log = set.dir + "/scored.jsonl";
    scored.qat_score_weight = 50;
    const TrainOutcome with = train(scored);
    EXPECT_GT(with.iterations.front().loss, without.iterations.front().loss);
    EXPECT_NE(file_bytes(scored.out), file_bytes(plain.out));
    scored.qat_loss = "labels";
    EXPECT_THROW(train(scored), apps::CommandLineError);
}

// --holdout and --qat-validate score a [yolo] net's detections as a [region] net's: both heads decoded.
TEST(TrainToolQat, YoloHeadsAreScoredOnHoldoutAndValidationImages) {
    const TinyTrainingSet set = teacher_set("train_tool_qat_yolo_scored", tiny_yolo_cfg_text());
    TrainOptions options = teacher_options(set, 2);
    options.holdout = {set.dir + "/image1.png"};
    options.qat_validate = {set.dir + "/image0.png"};
    options.qat_validate_every = 1;
    const TrainOutcome outcome = train(options);
    ASSERT_TRUE(outcome.holdout_before && outcome.holdout_after);
    ASSERT_EQ(outcome.validation.size(), 3U);
    // The same float detections counted by the report as the detector finds (thresh 0.25 and 0.5).
    BackendOptions cpu;
    cpu.device = "cpu";
    cpu.precision = Precision::Float;
    const Network network = load_darknet_model(set.cfg, set.weights);
    const std::unique_ptr<Backend> reference = make_backend(network, cpu);
    const Image image = load_image(set.dir + "/image1.png");
    const Image boxed = letterbox_image(image, network.input.w, network.input.h);
    const std::vector<float> output = reference->run(boxed.data.data());
    for (const DetectionAgreement& agreement : outcome.holdout_before->agreement) {
        std::vector<RegionBox> boxes =
            decode_network_output(network, output, image.w, image.h, agreement.thresh);
        nms_sort(boxes, network.output_classes(), 0.45f);
        const auto expected = collect_detections(boxes, agreement.thresh, image.w, image.h, {});
        EXPECT_EQ(agreement.float_detections, static_cast<int>(expected.size())) << agreement.thresh;
    }
    int found = 0;
    for (const DetectionAgreement& agreement : outcome.holdout_before->agreement)
        found += agreement.float_detections;
    EXPECT_GT(found, 0) << "the tiny yolo net must find something for this test to mean anything";
}

// --qat-plan: the widths come from a .fq16 (here 8-bit weights on the middle conv only); the file
// written has the same widths.
TEST(TrainToolQat, TrainsAtThePlansWidths) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_qat_plan");
    const Network network = load_darknet_model(set.cfg, set.weights);
    std::vector<LayerWidths> widths(network.layers.size());
    widths[2].weight_bits = 8;
    CalibrationOptions calibration;
    calibration.widths = widths;
    const std::string plan = set.dir + "/plan.fq16";
    save_quantized_network(calibrate(network, {set.dir + "/image0.png"}, calibration).quantized, plan);

    TrainOptions options = tiny_options(set, "plan", 3);
    options.no_augment = true;
    options.qat_plan = plan;
    options.qat_loss = "labels";
    train(options);
    const QuantizedNetwork written =
        load_quantized_network(options.qat_out_path(), load_darknet_model(set.cfg, options.out));
    for (std::size_t i = 0; i < written.layers.size(); ++i) {
        EXPECT_EQ(written.layers[i].weight_bits, widths[i].weight_bits) << "layer " << i;
        EXPECT_EQ(written.layers[i].output_bits, widths[i].output_bits) << "layer " << i;
    }
}

// A resumed --qat run trains at the exponents of the restored weights: with a recalibration at the
// iteration it resumes from, it ends where an uninterrupted run does (it did not when the resume kept
// the exponents of the starting weights).
TEST(TrainToolQat, ResumedRunEndsWhereAnUninterruptedOneDoes) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_qat_resume");
    const ResumeRuns runs = train_whole_and_resumed(40, 20, [&](const std::string& stem, int iterations) {
        TrainOptions options = tiny_options(set, stem, iterations);
        options.seed = 5;
        options.qat = "int8";
        options.qat_loss = "labels";
        options.qat_recalibrate = 20;
        return options;
    });
    EXPECT_NE(file_bytes(runs.first_half.out), file_bytes(runs.whole.out));
    EXPECT_EQ(file_bytes(runs.resumed.out), file_bytes(runs.whole.out));
    EXPECT_EQ(file_bytes(runs.resumed.qat_out_path()), file_bytes(runs.whole.qat_out_path()));
}

TEST(TrainToolQat, RefusesWithoutWeightsAndQatOptionsWithoutQat) {
    const TinyTrainingSet set = make_tiny_training_set("train_tool_qat_errors");
    TrainOptions options = tiny_options(set, "bad", 1);
    options.qat = "int8";
    options.weights.clear();
    EXPECT_NE(command_line_error(options).find("--qat fine-tunes a trained model"), std::string::npos)
        << command_line_error(options);
    TrainOptions holdout = tiny_options(set, "bad", 1);
    holdout.holdout = {set.dir};
    EXPECT_NE(command_line_error(holdout).find("--holdout scores"), std::string::npos)
        << command_line_error(holdout);
    TrainOptions validate = tiny_options(set, "bad", 1);
    validate.qat_validate = {set.dir};
    EXPECT_NE(command_line_error(validate).find("--qat-validate chooses"), std::string::npos)
        << command_line_error(validate);
    TrainOptions equalize = tiny_options(set, "bad", 1);
    equalize.qat_equalize = true;
    EXPECT_NE(command_line_error(equalize).find("--qat-equalize rescales"), std::string::npos)
        << command_line_error(equalize);
}

}  // namespace
}  // namespace fpgacnn::train_tool::test

#include "train_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>

#include <nlohmann/json.hpp>

#include "../common/exit_codes.hpp"
#include "../common/json_text.hpp"
#include "../common/output_paths.hpp"
#include "../quantize/image_list.hpp"
#include "checkpoint.hpp"
#include "darknet_init.hpp"
#include "device_report.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/equalization.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/progress_bar.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "loss_plot.hpp"
#include "model/cfg_parser.hpp"
#include "qat_session.hpp"
#include "train/float_trainer.hpp"
#include "train/truth_boxes.hpp"
#include "training_data.hpp"
#include "weights_seen.hpp"

namespace fpgacnn::train_tool {

namespace {

// The classes the labels may name: the loss layers' ([region], or every [yolo] head alike).
int detection_classes(const Network& network) {
    int classes = 0;
    for (const Layer& layer : network.layers) {
        int layer_classes = 0;
        if (layer.type == LayerType::Region) layer_classes = layer.region().classes;
        if (layer.type == LayerType::Yolo) layer_classes = layer.yolo().classes;
        if (layer_classes == 0) continue;
        if (classes != 0 && layer_classes != classes) {
            throw Error(network.cfg_path + ": layer " + std::to_string(layer.index) +
                        " has classes=" + std::to_string(layer_classes) + " but an earlier head " +
                        std::to_string(classes) + "; give every [yolo] head the same classes");
        }
        classes = layer_classes;
    }
    if (classes == 0) {
        throw Error(
            network.cfg_path +
            ": no [region] or [yolo] layer; fpgacnn-train trains YOLOv2's region and YOLOv3's yolo loss");
    }
    return classes;
}

Network starting_network(const TrainOptions& options) {
    Network network = load_darknet_cfg(options.cfg);
    if (options.weights.empty()) {
        darknet_random_init(network, options.seed);
    } else {
        load_darknet_weights(network, options.weights);
    }
    if (!options.qat_enabled()) return network;
    // --qat trains the layers as the fixed-point paths run them: batch-norm folded (qat_session.hpp).
    network = fold_for_qat(std::move(network));
    if (options.qat_equalize) {
        for (const EqualizedPair& pair : equalize_conv_ranges(network)) {
            spdlog::info(
                "--qat-equalize: conv {} -> conv {}: filter range spread of conv {} {:.1f} -> {:.1f}",
                pair.first, pair.second, pair.first, pair.first_ratio_before, pair.first_ratio_after);
        }
    }
    return network;
}

// The loss history of the iterations before a resume, from the same --log (for the plot).
std::vector<IterationRecord> earlier_records(const std::string& log, std::uint64_t before) {
    std::vector<IterationRecord> records;
    std::ifstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        const nlohmann::json row = nlohmann::json::parse(line, nullptr, false);
        if (row.is_discarded() || !row.contains("iteration") || !row.contains("loss")) continue;
        IterationRecord record;
        record.iteration = row["iteration"].get<std::uint64_t>();
        record.loss = row["loss"].get<double>();
        if (record.iteration <= before) records.push_back(record);
    }
    return records;
}

// A --qat-validate scoring in the JSON log: an object of its own kind (no "loss"), beside the iterations.
nlohmann::json validation_json(const ValidationScore& score) {
    return {{"validation",
             {{"iteration", score.iteration},
              {"kept", score.kept},
              {"float_detections", score.float_detections},
              {"kept_low", score.kept_low},
              {"float_detections_low", score.float_detections_low}}}};
}

nlohmann::json record_json(const IterationRecord& record) {
    return {{"iteration", record.iteration},
            {"loss", record.loss},
            {"rate", record.rate},
            {"seconds", record.seconds},
            {"images", record.images}};
}

}  // namespace

TrainOutcome run_training(const TrainOptions& options, const std::atomic<bool>& stop) {
    if (options.data.empty() && options.distill.empty()) {
        throw apps::CommandLineError(
            "give the training images: --data LIST (labelled) or --distill DIR (labelled by the model)");
    }
    if (!options.distill.empty() && options.weights.empty()) {
        throw apps::CommandLineError(
            "--distill labels the images with the starting model's detections: give its --weights");
    }
    if (options.qat_enabled() && options.weights.empty()) {
        throw apps::CommandLineError(
            "--qat fine-tunes a trained model at its fixed-point widths: give its --weights");
    }
    if (options.qat_score_weight > 0 && (!options.qat_enabled() || options.qat_loss != "teacher"))
        throw apps::CommandLineError(
            "--qat-score-weight weighs a term of the teacher loss: use it with --qat and --qat-loss teacher");
    if (!options.holdout.empty() && !options.qat_enabled())
        throw apps::CommandLineError(
            "--holdout scores the fixed-point model of --qat: add --qat or --qat-plan");
    if (options.qat_equalize && !options.qat_enabled())
        throw apps::CommandLineError(
            "--qat-equalize rescales the model before --qat trains it: add --qat or --qat-plan");
    if (!options.qat_validate.empty() && !options.qat_enabled())
        throw apps::CommandLineError(
            "--qat-validate chooses the iteration of --qat to keep: add --qat or --qat-plan");
    apps::check_output_file(options.out, "--out");
    if (options.qat_enabled()) apps::check_output_file(options.qat_out_path(), "--qat-out");
    apps::check_output_file(options.checkpoint_path(), "--checkpoint");
    if (!options.log.empty()) apps::check_output_file(options.log, "--log");
    if (!options.plot.empty()) apps::check_output_file(options.plot, "--plot");

    const model::CfgFile cfg = model::read_cfg_file(options.cfg);
    train::FloatTrainer trainer(starting_network(options), train::read_training_options(cfg));
    const std::unique_ptr<train::DeviceGradients> device_gradients =
        train::open_device_gradients(options.device, trainer.network(), trainer.batch());
    trainer.set_device_gradients(device_gradients.get());
    const Network& network = trainer.network();
    const int classes = detection_classes(network);
    std::vector<LabelledImage> images =
        options.distill.empty()
            ? read_training_list(options.data, classes)
            : distill_labels(options.distill, options.cfg, options.weights, options.thresh);
    TrainOutcome outcome;
    outcome.images = images.size();
    std::unique_ptr<QatSession> qat;
    std::optional<QatValidation> validation;
    std::vector<std::string> holdout;
    if (options.qat_enabled()) {
        std::vector<std::string> calibration_images;
        calibration_images.reserve(images.size());
        for (const LabelledImage& image : images) calibration_images.push_back(image.path);
        qat = std::make_unique<QatSession>(options, network, trainer.options(), calibration_images);
        if (!options.holdout.empty()) {
            holdout = quantize::expand_image_arguments(options.holdout);
            outcome.holdout_images = holdout.size();
            // The baseline: the starting model calibrated alone, at the same widths on the same images
            // (equalized first with --qat-equalize, as fpgacnn-quantize --equalize would).
            const QuantizedNetwork before = options.qat_equalize ? qat->quantize_network(network)
                                                                 : qat->quantize_weights(options.weights);
            outcome.holdout_before = score_against_float(options.cfg, options.weights, before, holdout);
        }
        qat->recalibrate(network);
        trainer.set_fake_quantizer(&qat->quantizer());
        if (!options.qat_validate.empty()) {
            validation.emplace(options.cfg, options.weights,
                               quantize::expand_image_arguments(options.qat_validate));
            outcome.validation_images = validation->image_count();
        }
    }
    BatchSource source(std::move(images), network.input.w, network.input.h, !options.no_augment,
                       read_augment_options(cfg), options.seed);

    const train::SolverOptions& solver = trainer.options().solver;
    const auto per_update = static_cast<std::uint64_t>(solver.images_per_update());
    if (!options.weights.empty() && !options.clear) trainer.set_seen(read_weights_seen(options.weights));
    if (!options.resume.empty()) {
        source.restore(load_checkpoint(options.resume, trainer));
        // The exponents were calibrated on the starting weights above; the restored ones are trained.
        if (qat) qat->recalibrate(network);
    }
    outcome.start_iteration = trainer.seen() / per_update;
    std::uint64_t last = options.max_batches > 0 ? static_cast<std::uint64_t>(options.max_batches)
                                                 : static_cast<std::uint64_t>(solver.max_batches);
    if (last == 0)
        throw Error(options.cfg + ": [net] has no max_batches; say how long to train with --max-batches");
    if (options.iterations > 0) {
        last = std::min(last, outcome.start_iteration + static_cast<std::uint64_t>(options.iterations));
    }

    std::ofstream log;
    if (!options.log.empty()) {
        log.open(options.log, options.resume.empty() ? std::ios::trunc : std::ios::app);
        if (!log) throw Error(options.log + ": cannot write the JSON log");
    }
    // Scores the current weights, whose fixed-point model is `fixed_point`, on the validation images.
    const auto validate = [&](std::uint64_t iteration, const QuantizedNetwork& fixed_point) {
        const ValidationScore& score = validation->score(iteration, network, fixed_point);
        if (log) log << apps::json_text(validation_json(score)) << '\n' << std::flush;
    };
    // The starting point competes too: a run that never beats calibration alone keeps its weights.
    if (validation) validate(outcome.start_iteration, qat->quantize_network(network));
    std::vector<float> input(network.input.size() * solver.batch);
    std::vector<float> truth(static_cast<std::size_t>(solver.batch) * train::kMaxTruthBoxes *
                             train::kTruthFloats);
    const int to_run = last > outcome.start_iteration ? static_cast<int>(last - outcome.start_iteration) : 0;
    ProgressBar progress("train", to_run, !options.quiet);
    double training_seconds = 0;
    while (trainer.seen() / per_update < last) {
        if (stop) {
            outcome.interrupted = true;
            break;
        }
        const auto start = std::chrono::steady_clock::now();
        double cost = 0;
        for (int s = 0; s < solver.subdivisions; ++s) {
            source.next_batch(solver.batch, input.data(), truth.data());
            cost += qat && options.qat_loss == "teacher"
                        ? qat->teacher_step(trainer, input.data(), truth.data())
                        : trainer.train_batch(input.data(), truth.data());
        }
        IterationRecord record;
        record.images = trainer.seen();
        record.iteration = record.images / per_update;
        record.loss = cost / static_cast<double>(per_update);
        record.rate = train::current_learning_rate(solver, record.iteration);
        record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        training_seconds += record.seconds;
        outcome.iterations.push_back(record);
        if (log) log << apps::json_text(record_json(record)) << '\n' << std::flush;
        progress.step(fmt::format("loss {:.4f}", record.loss));
        // A recalibration's fixed-point model is the current weights' one: validation reuses it.
        std::optional<QuantizedNetwork> recalibrated;
        if (qat && record.iteration % static_cast<std::uint64_t>(options.qat_recalibrate) == 0)
            recalibrated = qat->recalibrate(network);
        if (validation && record.iteration % static_cast<std::uint64_t>(options.qat_validate_every) == 0) {
            if (recalibrated)
                validate(record.iteration, *recalibrated);
            else
                validate(record.iteration, qat->quantize_network(network));
        }
        if (options.checkpoint_every > 0 &&
            record.iteration % static_cast<std::uint64_t>(options.checkpoint_every) == 0) {
            save_checkpoint(options.checkpoint_path(), trainer, source.state());
        }
    }
    save_checkpoint(options.checkpoint_path(), trainer, source.state());
    if (!outcome.interrupted && !qat) save_darknet_weights(network, options.out, trainer.seen());
    if (!outcome.interrupted && qat) {
        if (validation) {
            outcome.validation = validation->history();
            outcome.validation_best = validation->best();
        }
        // With --qat-validate the best-scoring weights, not the last ones, become the model.
        const bool keep_best = outcome.validation_best.has_value();
        save_darknet_weights(
            unfold_for_cfg(keep_best ? validation->best_network() : network, load_darknet_cfg(options.cfg)),
            options.out, keep_best ? outcome.validation_best->iteration * per_update : trainer.seen());
        const QuantizedNetwork after = qat->quantize_weights(options.out);
        save_quantized_network(after, options.qat_out_path());
        if (!holdout.empty())
            outcome.holdout_after = score_against_float(options.cfg, options.weights, after, holdout);
    }
    progress.finish(fmt::format("{} iterations{}", outcome.iterations.size(),
                                outcome.interrupted ? " (interrupted)" : ""));
    const std::size_t trained_images = outcome.iterations.size() * per_update;
    if (device_gradients) {
        spdlog::info("{}", format_device_report(*device_gradients, trained_images,
                                                spdlog::should_log(spdlog::level::debug)));
    }
    if (trained_images > 0)
        outcome.seconds_per_image = training_seconds / static_cast<double>(trained_images);
    if (!options.plot.empty()) {
        std::vector<IterationRecord> all = options.resume.empty() || options.log.empty()
                                               ? std::vector<IterationRecord>{}
                                               : earlier_records(options.log, outcome.start_iteration);
        all.insert(all.end(), outcome.iterations.begin(), outcome.iterations.end());
        write_loss_plot(options.plot, all, std::filesystem::path(options.cfg).filename().string(),
                        outcome.validation, outcome.validation_best);
    }
    return outcome;
}

}  // namespace fpgacnn::train_tool

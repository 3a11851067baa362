// fpgacnn-train: fine-tunes a darknet YOLOv2 model on the CPU in float, as darknet trains it, and
// writes darknet .weights. Exit codes: apps/common/exit_codes.hpp, and 130 when Ctrl-C stopped the run
// (the checkpoint is written; --out is not).
#include <signal.h>

#include <atomic>
#include <iostream>

#include <fmt/format.h>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/parse_then_run.hpp"
#include "fpgacnn/logging.hpp"
#include "train_options.hpp"
#include "train_run.hpp"

using namespace fpgacnn;
using namespace fpgacnn::train_tool;

namespace {

constexpr int kExitInterrupted = 130;  // the shell's code for a SIGINT

std::atomic<bool> stop_requested{false};

extern "C" void request_stop(int /*signal*/) { stop_requested = true; }

int run(const TrainOptions& options) {
    struct sigaction action {};
    action.sa_handler = request_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    const TrainOutcome outcome = run_training(options, stop_requested);
    if (outcome.interrupted) {
        std::cerr << fmt::format(
            "fpgacnn-train: stopped at iteration {}; checkpoint {} written (continue with --resume "
            "{}); {} not written\n",
            outcome.start_iteration + outcome.iterations.size(), options.checkpoint_path(),
            options.checkpoint_path(), options.out);
        return kExitInterrupted;
    }
    if (outcome.iterations.empty()) {
        std::cout << fmt::format("already at iteration {} (--max-batches): nothing trained; {} written\n",
                                 outcome.start_iteration, options.out);
    } else {
        const IterationRecord& end = outcome.iterations.back();
        std::cout << fmt::format(
            "trained iterations {}..{} on {} images: loss {:.4f} -> {:.4f}, {:.3f} s per training image; "
            "wrote {} "
            "(seen {}) and checkpoint {}\n",
            outcome.start_iteration + 1, end.iteration, outcome.images, outcome.iterations.front().loss,
            end.loss, outcome.seconds_per_image, options.out, end.images, options.checkpoint_path());
    }
    if (options.qat_enabled())
        std::cout << fmt::format("wrote {} (the fixed-point model)\n", options.qat_out_path());
    const auto print_kept = [&](const char* when, const AccuracyReport& report) {
        for (const DetectionAgreement& agreement : report.agreement) {
            std::cout << fmt::format(
                "held-out {} images, {}: thresh {:.2f}: {} of {} float detections kept ({:.1f} %)\n",
                outcome.holdout_images, when, agreement.thresh, agreement.reproduced,
                agreement.float_detections, 100.0 * agreement.ratio());
        }
    };
    if (outcome.validation_best) {
        const ValidationScore& best = *outcome.validation_best;
        std::cout << fmt::format(
            "--qat-validate: wrote the weights of iteration {} (best of {} scorings on {} validation "
            "images): "
            "{} of {} float detections kept at 0.50, {} of {} at 0.25\n",
            best.iteration, outcome.validation.size(), outcome.validation_images, best.kept,
            best.float_detections, best.kept_low, best.float_detections_low);
    }
    if (outcome.holdout_before) print_kept("calibration alone", *outcome.holdout_before);
    if (outcome.holdout_after) print_kept("after --qat", *outcome.holdout_after);
    return apps::kExitSuccess;
}

int train_main(int argc, char** argv) {
    TrainOptions options;
    return apps::parse_then_run(
        "fpgacnn-train: fine-tune a darknet YOLOv2 model (float, CPU) from darknet-format labels or the "
        "model's "
        "own detections, and write darknet .weights",
        [&](CLI::App& app) { add_train_options(app, options); }, argc, argv,
        [&] {
            set_log_level(log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info));
            return run(options);
        });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-train", train_main, argc, argv);
}

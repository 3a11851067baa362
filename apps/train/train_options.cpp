#include "train_options.hpp"

#include <CLI/CLI.hpp>

#include "../common/flag_checks.hpp"
#include "train/device_gradients.hpp"

namespace fpgacnn::train_tool {

std::string TrainOptions::qat_out_path() const {
    if (!qat_out.empty()) return qat_out;
    const std::size_t dot = out.find_last_of('.');
    const std::size_t slash = out.find_last_of('/');
    const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    return (has_extension ? out.substr(0, dot) : out) + ".fq16";
}

void add_train_options(CLI::App& app, TrainOptions& options) {
    app.add_option("--cfg", options.cfg,
                   "darknet network .cfg: its [net] gives batch, subdivisions, the solver and "
                   "the rate policy, [region] or [yolo] the loss")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option(
           "--weights", options.weights,
           "darknet .weights to start from (default: darknet's random initialisation of a fresh network)")
        ->check(CLI::ExistingFile);
    auto* data = app.add_option("--data", options.data,
                                "image list: one image path a line, its labels in the .txt of the same name "
                                "beside it (or darknet's images/ -> labels/ rule)")
                     ->check(CLI::ExistingFile);
    auto* distill =
        app.add_option("--distill", options.distill,
                       "train on every image of this folder, labelled with the starting model's own "
                       "detections (needs --weights)")
            ->check(CLI::ExistingDirectory)
            ->excludes(data);
    app.add_option("--thresh", options.thresh, "--distill: detection threshold of the labels")
        ->check(apps::finite_range(0.001, 0.999))
        ->capture_default_str()
        ->needs(distill);
    app.add_option("--out", options.out,
                   "the trained .weights to write (darknet's format, `seen` in the header)")
        ->required();
    app.add_option("--max-batches", options.max_batches,
                   "train until this iteration (weight updates since the start of the schedule, darknet's "
                   "max_batches); default: the cfg's")
        ->check(CLI::Range(1, 100000000));
    app.add_option("--iterations", options.iterations,
                   "at most this many iterations in this run (a fine-tune of a model far into its schedule)")
        ->check(CLI::Range(1, 100000000));
    app.add_flag("--clear", options.clear,
                 "start at iteration 0 (burn-in and rate schedule from the start) instead of where the "
                 "--weights file's `seen` says, as darknet's -clear");
    app.add_flag("--no-augment", options.no_augment,
                 "resize each image to the input (darknet's resize_image): no jitter, colour change or flip");
    app.add_option("--seed", options.seed,
                   "seed of the augmentation's draws and of a fresh network's weights")
        ->capture_default_str();
    app.add_option("--checkpoint-every", options.checkpoint_every,
                   "write the checkpoint every N iterations (it is always written at the end and on Ctrl-C)")
        ->check(CLI::Range(0, 100000000));
    app.add_option("--checkpoint", options.checkpoint, "the checkpoint file (default: <out>.checkpoint)");
    app.add_option("--resume", options.resume, "continue from a checkpoint of the same cfg and data")
        ->check(CLI::ExistingFile);
    app.add_option("--log", options.log,
                   "JSON lines: one {iteration, loss, rate, seconds, images} an iteration");
    app.add_option("--plot", options.plot, "a PNG of the loss curve");
    app.add_option("--device", options.device,
                   "where the conv layers' backward (dX) and weight gradient (dW) run, one of " +
                       train::training_device_values_text() +
                       ": cpu in float (the default), cpu-fixed in the kernel's fixed point on the CPU twin, "
                       "the others through an accelerator's BP and WG commands (the rtl builds refuse them); "
                       "the rest of training stays in float on the CPU (docs/tools/fpgacnn-train.md)")
        ->capture_default_str();
    auto* qat = app.add_option("--qat", options.qat,
                               "quantization-aware training at every conv layer's width (int16 or int8): "
                               "fixed-point forward, straight-through backward; writes a .fq16 too")
                    ->check(CLI::IsMember({"int16", "int8"}));
    app.add_option("--qat-plan", options.qat_plan,
                   "quantization-aware training at the per-layer widths of this .fq16 "
                   "(e.g. fpgacnn-quantize --explore's)")
        ->check(CLI::ExistingFile)
        ->excludes(qat);
    app.add_option("--qat-recalibrate", options.qat_recalibrate,
                   "--qat: iterations between recalibrations of the exponents on the training images")
        ->check(CLI::Range(1, 100000000))
        ->capture_default_str();
    app.add_option(
           "--qat-loss", options.qat_loss,
           "--qat: teacher = the squared distance of the [region] / [yolo] outputs to the float "
           "starting model's on the same images; labels = the region / yolo loss on the --data / --distill "
           "labels")
        ->check(CLI::IsMember({"teacher", "labels"}))
        ->capture_default_str();
    app.add_option("--qat-score-weight", options.qat_score_weight,
                   "--qat-loss teacher: also the squared distance of the detection scores (objectness times "
                   "the teacher's best class's probability) of the anchors the teacher scores at least 0.1, "
                   "times this weight (0: off)")
        ->check(CLI::Range(0.0, 1e6))
        ->capture_default_str();
    app.add_flag("--qat-equalize", options.qat_equalize,
                 "--qat: balance the weight ranges of consecutive conv layers before training (cross-layer "
                 "equalization, as fpgacnn-quantize --equalize; the network computes the same)");
    app.add_option("--qat-out", options.qat_out,
                   "--qat: the .fq16 to write (default: --out with extension .fq16)");
    app.add_option("--holdout", options.holdout,
                   "--qat: images or folders not trained on; reports the float model's detections the "
                   "fixed-point model keeps, before (calibration alone) and after the training")
        ->expected(1, -1);
    app.add_option("--qat-validate", options.qat_validate,
                   "--qat: images or folders neither trained nor held out on; every --qat-validate-every "
                   "iterations the fixed-point model is scored on them (float detections kept at --thresh) "
                   "and the best iteration's weights are the ones written")
        ->expected(1, -1);
    app.add_option("--qat-validate-every", options.qat_validate_every,
                   "--qat-validate: iterations between two scorings")
        ->check(CLI::Range(1, 100000000))
        ->capture_default_str();
    app.add_flag("-v,--verbose", options.verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", options.quiet, "only errors on stderr (no progress bar)");
}

}  // namespace fpgacnn::train_tool

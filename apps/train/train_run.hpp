// What fpgacnn-train does once its flags are parsed: load the cfg and start weights, gather the
// labelled images, train with the float trainer (runtime/src/train) iteration by iteration as darknet's
// train_detector does, and write the .weights, checkpoints, JSON log and loss plot.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "fpgacnn/quant_accuracy.hpp"

#include "qat_validation.hpp"
#include "train_options.hpp"

namespace fpgacnn::train_tool {

struct IterationRecord {
    std::uint64_t iteration = 0;  ///< weight updates done (darknet's get_current_batch)
    double loss = 0;              ///< darknet's train_network value: the summed cost / images
    double rate = 0;              ///< the learning rate the update used
    double seconds = 0;           ///< wall time of the iteration
    std::uint64_t images = 0;     ///< darknet's seen after it
};

struct TrainOutcome {
    std::vector<IterationRecord> iterations;  ///< this run's
    std::uint64_t start_iteration = 0;
    bool interrupted = false;  ///< `stop` was raised: the checkpoint was written, --out was not
    std::size_t images = 0;    ///< images in the training set
    double seconds_per_image = 0;
    /// --qat with --holdout: the float model's detections the fixed-point model keeps on the held-out
    /// images, calibrated alone (before) and after the quantization-aware training.
    std::optional<AccuracyReport> holdout_before;
    std::optional<AccuracyReport> holdout_after;  ///< see holdout_before
    std::size_t holdout_images = 0;
    /// --qat-validate: every scoring, and the one whose weights were written.
    std::vector<ValidationScore> validation;
    std::optional<ValidationScore> validation_best;
    std::size_t validation_images = 0;
};

/// Runs the command. `stop` is polled between iterations (the SIGINT handler raises it). Throws
/// apps::CommandLineError for flags that do not go together (no --data or --distill, --distill
/// without --weights) and Error naming the file for bad input, both before any output is written.
TrainOutcome run_training(const TrainOptions& options, const std::atomic<bool>& stop);

}  // namespace fpgacnn::train_tool

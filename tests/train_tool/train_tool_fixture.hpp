// A tiny training set for fpgacnn-train's tests: a 16x16 YOLOv2-like cfg (batch 2), synthetic
// weights, and small PNG images with darknet label files, in a scratch folder.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "train_options.hpp"
#include "train_run.hpp"

namespace fpgacnn::train_tool::test {

/// The cfg text; rescore=0 so one batch over-fits (tests/train/trainer_test.cpp says why).
std::string tiny_cfg_text();

/// The same trunk with YOLOv3-tiny's head in small: two [yolo] heads (4x4 and 8x8), the second on an
/// upsampled route of the first's trunk concatenated with an earlier layer.
std::string tiny_yolo_cfg_text();

struct TinyTrainingSet {
    std::string dir;
    std::string cfg;
    std::string weights;
    std::string list;  ///< two images, each with its .txt beside it
};

/// Writes the set into scratch folder `name` (images of `image_size` pixels square) with `cfg_text`
/// (default tiny_cfg_text()).
TinyTrainingSet make_tiny_training_set(const std::string& name, int image_size = 20,
                                       const std::string& cfg_text = "");

/// Options of a run on `set` writing into set.dir with the given output stem.
TrainOptions tiny_options(const TinyTrainingSet& set, const std::string& stem, int max_batches);

/// The whole file (empty when it cannot be read).
std::string file_bytes(const std::string& path);

/// run_training without an interrupt.
TrainOutcome train(const TrainOptions& options);

/// The runs a resume test compares: `iterations` at once, the first `half` of them, and that half
/// resumed from its checkpoint to `iterations`; each made by `options_of(stem, max_batches)`.
struct ResumeRuns {
    TrainOptions whole, first_half, resumed;
    TrainOutcome whole_outcome, resumed_outcome;
};
ResumeRuns train_whole_and_resumed(int iterations, int half,
                                   const std::function<TrainOptions(const std::string&, int)>& options_of);

/// The message of the Error run_training throws ("" when it does not).
std::string training_error(const TrainOptions& options);

}  // namespace fpgacnn::train_tool::test

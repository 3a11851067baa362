// --qat-validate: which iteration of a quantization-aware training run to keep. Every N iterations the
// fixed-point model of the current weights is scored on validation images (neither trained on nor held
// out), and the weights that kept the most float detections are the ones written. The held-out score of
// a run is only fair when the iteration was not chosen on the held-out images themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"
#include "fpgacnn/quant_accuracy.hpp"

#include "fpgacnn/quantized.hpp"

namespace fpgacnn::train_tool {

/// What one scoring measured: float detections the fixed-point model keeps at 0.5 (the threshold every
/// tool runs at) and at 0.25.
struct ValidationScore {
    std::uint64_t iteration = 0;   ///< weight updates done when it was scored (0: calibration alone)
    int kept = 0;                  ///< at thresh 0.5
    int float_detections = 0;      ///< at thresh 0.5
    int kept_low = 0;              ///< at thresh 0.25, the tie-breaker
    int float_detections_low = 0;  ///< at thresh 0.25
};

/// Whether `candidate` beats `best`: more float detections kept at 0.5, then at 0.25 (a tie does not:
/// the earlier, less trained, weights stay).
bool scores_above(const ValidationScore& candidate, const ValidationScore& best);

/// The score of `report` (score_against_float's) at `iteration`.
ValidationScore validation_score(std::uint64_t iteration, const AccuracyReport& report);

class QatValidation {
public:
    /// `images`: the expanded validation images; `cfg`, `float_weights`: the float reference.
    QatValidation(std::string cfg, std::string float_weights, std::vector<std::string> images);

    /// Scores `fixed_point`, the fixed-point model of `network` (the trainer's, as
    /// QatSession::quantize_network calibrates it), and keeps a copy of `network` when it beats every
    /// earlier score (more kept at 0.5, then at 0.25; a tie keeps the earlier, less trained, weights).
    const ValidationScore& score(std::uint64_t iteration, const Network& network,
                                 const QuantizedNetwork& fixed_point);

    std::size_t image_count() const { return images_.size(); }
    const std::vector<ValidationScore>& history() const { return history_; }
    /// The best score so far and its weights (nullopt / empty before the first score).
    std::optional<ValidationScore> best() const;
    const Network& best_network() const { return best_network_; }

private:
    std::string cfg_;
    std::string float_weights_;
    std::vector<std::string> images_;
    std::vector<ValidationScore> history_;
    std::size_t best_index_ = 0;
    Network best_network_;
};

}  // namespace fpgacnn::train_tool

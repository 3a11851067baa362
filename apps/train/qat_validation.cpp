#include "qat_validation.hpp"

#include <cmath>
#include <utility>

#include <spdlog/spdlog.h>

#include "qat_session.hpp"

namespace fpgacnn::train_tool {

ValidationScore validation_score(std::uint64_t iteration, const AccuracyReport& report) {
    ValidationScore score;
    score.iteration = iteration;
    for (const DetectionAgreement& agreement : report.agreement) {
        if (std::fabs(agreement.thresh - 0.5f) < 1e-6f) {
            score.kept = agreement.reproduced;
            score.float_detections = agreement.float_detections;
        } else if (std::fabs(agreement.thresh - 0.25f) < 1e-6f) {
            score.kept_low = agreement.reproduced;
            score.float_detections_low = agreement.float_detections;
        }
    }
    return score;
}

bool scores_above(const ValidationScore& candidate, const ValidationScore& best) {
    return candidate.kept > best.kept || (candidate.kept == best.kept && candidate.kept_low > best.kept_low);
}

QatValidation::QatValidation(std::string cfg, std::string float_weights, std::vector<std::string> images)
    : cfg_(std::move(cfg)), float_weights_(std::move(float_weights)), images_(std::move(images)) {}

const ValidationScore& QatValidation::score(std::uint64_t iteration, const Network& network,
                                            const QuantizedNetwork& fixed_point) {
    history_.push_back(
        validation_score(iteration, score_against_float(cfg_, float_weights_, fixed_point, images_)));
    const ValidationScore& latest = history_.back();
    const ValidationScore& best = history_[best_index_];
    const bool better = history_.size() == 1 || scores_above(latest, best);
    if (better) {
        best_index_ = history_.size() - 1;
        best_network_ = network;
    }
    spdlog::info("--qat-validate: iteration {}: {} of {} float detections kept at 0.5, {} of {} at 0.25{}",
                 latest.iteration, latest.kept, latest.float_detections, latest.kept_low,
                 latest.float_detections_low, better ? " (best so far)" : "");
    return latest;
}

std::optional<ValidationScore> QatValidation::best() const {
    if (history_.empty()) return std::nullopt;
    return history_[best_index_];
}

}  // namespace fpgacnn::train_tool

// fpgacnn-quantize's output: a text table for people, one JSON object for scripts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/equalization.hpp"
#include "fpgacnn/quant_accuracy.hpp"
#include "width_explorer.hpp"

namespace fpgacnn::quantize {

struct QuantizeOutcome {
    std::string out_path;
    std::vector<std::string> images;
    CalibrationResult calibration;
    std::optional<AccuracyReport> accuracy;
    std::optional<WidthExploration> exploration;  // --explore: the chosen point is `calibration`
    std::vector<EqualizedPair> equalized;         // --equalize: the conv pairs balanced
};

std::string outcome_to_text(const QuantizeOutcome& outcome);
nlohmann::json outcome_to_json(const QuantizeOutcome& outcome);

}  // namespace fpgacnn::quantize

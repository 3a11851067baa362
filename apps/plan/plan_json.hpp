// The plan as JSON (fpgacnn-plan --json): options, per-layer tiles, offsets, traffic and estimate.
#pragma once

#include <nlohmann/json.hpp>

#include "fpgacnn/plan.hpp"
#include "fpgacnn/training_plan.hpp"

namespace fpgacnn::plan_app {

nlohmann::json plan_to_json(const NetworkPlan& plan);

/// fpgacnn-plan --train: every conv layer's FP / BP / WG time and utilization, and the sums.
nlohmann::json training_to_json(const TrainingEstimate& estimate);

}  // namespace fpgacnn::plan_app

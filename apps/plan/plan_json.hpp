// The plan as JSON (fpgacnn-plan --json): options, per-layer tiles, offsets, traffic and estimate.
#pragma once

#include <nlohmann/json.hpp>

#include "fpgacnn/plan.hpp"

namespace fpgacnn::plan_app {

nlohmann::json plan_to_json(const NetworkPlan& plan);

}  // namespace fpgacnn::plan_app

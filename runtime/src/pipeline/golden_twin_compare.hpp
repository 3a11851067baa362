// The golden twin's comparison: the first value where a device's layer outputs differ from the CPU
// int16 backend's, located by layer, channel, position and the planner's output tile.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "fpgacnn/golden_twin.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::pipeline_detail {

/// Compares every layer in network order: `device[i]` (empty: not captured, skipped) with
/// `cpu_layer(i)`. Returns the first difference (frame left 0), or nothing when all are equal.
std::optional<TwinMismatch> first_divergence(
    const NetworkPlan& plan, const std::vector<std::vector<int16_t>>& device,
    const std::function<const std::vector<int16_t>&(int)>& cpu_layer);

}  // namespace fpgacnn::pipeline_detail

// The storage width of every layer's output (docs/arithmetic.md, "Per-layer widths") from the widths
// asked for the conv layers: the layers that only move values carry their input's width, and a
// route's inputs must share one, so a request is widened where a route joins it with wider values.
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"

namespace fpgacnn {

struct WidthPlan {
    std::vector<int> output_bits;    // per layer
    std::vector<int> weight_bits;    // per layer (16 where a layer has no weights)
    std::vector<std::string> notes;  // requests widened for a route
};

/// `requested`: per layer, or empty for all 16. Throws Error for a width other than 16 or 8 or a
/// study width (arith::is_study_width).
WidthPlan plan_widths(const Network& network, const std::vector<LayerWidths>& requested);

}  // namespace fpgacnn

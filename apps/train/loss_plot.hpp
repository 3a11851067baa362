// fpgacnn-train --plot FILE.png: the loss of every iteration (log scale) with its moving average, and
// with --qat-validate a panel of the validation scores under it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "train_run.hpp"

namespace fpgacnn::train_tool {

/// Draws the curve (and the share of float detections kept on the validation images at 0.5 and 0.25
/// at each scoring, the kept one marked, when `validation` is not empty) and writes it (temporary file
/// and rename). Nothing is written for no iterations.
void write_loss_plot(const std::string& path, const std::vector<IterationRecord>& records,
                     const std::string& title, const std::vector<ValidationScore>& validation = {},
                     const std::optional<ValidationScore>& kept = std::nullopt);

}  // namespace fpgacnn::train_tool

// fpgacnn-train --plot FILE.png: the loss of every iteration (log scale) with its moving average.
#pragma once

#include <string>
#include <vector>

#include "train_run.hpp"

namespace fpgacnn::train_tool {

/// Draws the curve and writes it (temporary file and rename). Nothing is written for no iterations.
void write_loss_plot(const std::string& path, const std::vector<IterationRecord>& records,
                     const std::string& title);

}  // namespace fpgacnn::train_tool

// The explorer's picture (fpgacnn-plan --explore --plot FILE.png): the roofline of the best build with
// every layer on it, and the Pareto front of latency against DSPs (BRAM as colour).
#pragma once

#include <opencv2/core.hpp>

#include "explorer.hpp"

namespace fpgacnn::explore {

/// The picture; fpgacnn-plan writes it with the tools' atomic image writer.
cv::Mat draw_explore_plot(const ExploreResult& result);

}  // namespace fpgacnn::explore

// fpgacnn-quantize --explore --plot FILE.png: the width choices' accuracy against weight bytes and
// against CPU time, the Pareto front and the chosen point marked.
#pragma once

#include <opencv2/core.hpp>

#include "width_explorer.hpp"

namespace fpgacnn::quantize {

cv::Mat draw_width_plot(const WidthExploration& exploration, const std::string& model_name);

}  // namespace fpgacnn::quantize

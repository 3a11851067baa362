// The --plot chart: per-layer time bars (measured, with the planner's estimate beside) on the
// left, and on the right every conv layer's position on the roofline (GOP/s against operations
// per byte, log-log) under the compute and bandwidth roofs of what ran it.
#pragma once

#include <opencv2/core.hpp>

#include "bench_run.hpp"

namespace fpgacnn::bench {

cv::Mat draw_bench_plot(const BenchResult& result);

}  // namespace fpgacnn::bench

// The explorer's picture (fpgacnn-plan --explore --plot FILE.png): the roofline of the best build with
// every layer on it, and the Pareto front of latency against DSPs (BRAM as colour).
#pragma once

#include <string>

#include "explorer.hpp"

namespace fpgacnn::explore {

/// Writes the PNG; throws Error naming the file when it cannot be written.
void write_explore_plot(const ExploreResult& result, const std::string& path);

}  // namespace fpgacnn::explore

// What fpgacnn-plan --explore prints: the table, the JSON, and the build config for the HLS scripts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "explorer.hpp"

namespace fpgacnn::explore {

/// Board, budget, search statistics, the best build with its layers, and the Pareto front.
std::string format_explore_table(const ExploreResult& result);

nlohmann::json explore_to_json(const ExploreResult& result);

/// The best build as the HLS scripts take it: FPGACNN_* variables for build_ip.tcl (Vivado HLS,
/// `set -a; . file`) and the same values as make variables for kernels/hls/vitis/Makefile.
std::string hls_config(const ExploreResult& result);

}  // namespace fpgacnn::explore

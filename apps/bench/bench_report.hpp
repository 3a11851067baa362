// fpgacnn-bench's outputs: a table for people, one JSON document for scripts, the per-layer CSV.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench_run.hpp"

namespace fpgacnn::bench {

std::string result_to_text(const BenchResult& result);
nlohmann::json result_to_json(const BenchResult& result);
/// One header line, then one line per layer.
std::string layers_to_csv(const BenchResult& result);
/// "12.3 W average, 15.0 W peak, ..." or "not available: <reason>".
/// "peak RSS 250.3 MiB, 175.1 MiB above the start-up footprint of 75.2 MiB (ru_maxrss)".
std::string memory_summary(const BenchResult& result);
std::string power_summary(const BenchResult& result);

}  // namespace fpgacnn::bench

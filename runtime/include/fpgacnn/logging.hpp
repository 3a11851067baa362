// Logging setup shared by the library and the apps (spdlog underneath).
#pragma once

#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// How much the library logs: Quiet errors only, Warn adds warnings, Info progress notes (the tools'
/// default), Debug and Trace more detail (-v, -vv).
enum class LogLevel { Quiet, Warn, Info, Debug, Trace };

/// Sets the level of the library's logger (written to stderr, so stdout stays clean for --json).
FPGACNN_API void set_log_level(LogLevel level);

/// The apps' -q / -v / -vv convention: quiet wins, then each -v one level more than `normal`
/// (Debug, then Trace).
FPGACNN_API LogLevel log_level_from_flags(bool quiet, int verbosity, LogLevel normal);

}  // namespace fpgacnn

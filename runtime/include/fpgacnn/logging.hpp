// Logging setup shared by the library and the apps (spdlog underneath).
#pragma once

namespace fpgacnn {

enum class LogLevel { Quiet, Warn, Info, Debug, Trace };

/// Sets the level of the library's logger (written to stderr, so stdout stays clean for --json).
void set_log_level(LogLevel level);

}  // namespace fpgacnn

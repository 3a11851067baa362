#include "fpgacnn/logging.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace fpgacnn {

void set_log_level(LogLevel level) {
    // stderr, so that JSON on stdout is never interleaved with log lines.
    static const auto logger = [] {
        auto created = spdlog::stderr_color_mt("fpgacnn");
        spdlog::set_default_logger(created);
        spdlog::set_pattern("[%l] %v");
        return created;
    }();
    switch (level) {
        case LogLevel::Quiet:
            logger->set_level(spdlog::level::err);
            break;
        case LogLevel::Warn:
            logger->set_level(spdlog::level::warn);
            break;
        case LogLevel::Info:
            logger->set_level(spdlog::level::info);
            break;
        case LogLevel::Debug:
            logger->set_level(spdlog::level::debug);
            break;
        case LogLevel::Trace:
            logger->set_level(spdlog::level::trace);
            break;
    }
}

LogLevel log_level_from_flags(bool quiet, int verbosity, LogLevel normal) {
    if (quiet) return LogLevel::Quiet;
    if (verbosity >= 2) return LogLevel::Trace;
    if (verbosity == 1) return LogLevel::Debug;
    return normal;
}

}  // namespace fpgacnn

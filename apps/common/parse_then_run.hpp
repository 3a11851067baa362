// The middle of every tool's main: parse the command line, then run. --help exits 0 and a bad command
// line 2 (CLI11 prints why); a library Error, or another exception, is logged and gives exit 1.
#pragma once

#include <exception>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "fpgacnn/error.hpp"

namespace fpgacnn::apps {

/// `run` is called after a successful parse and returns the exit code (it may still return 2 for a
/// combination of flags CLI11 cannot check).
template <typename Run>
int parse_then_run(CLI::App& app, int argc, char** argv, Run run) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    try {
        return run();
    } catch (const Error& e) {
        spdlog::error("{}", e.what());
        return 1;
    } catch (const std::exception& e) {
        spdlog::error("unexpected failure: {}", e.what());
        return 1;
    }
}

}  // namespace fpgacnn::apps

// The middle of every tool's main: parse the command line, then run, with the exit codes of
// exit_codes.hpp. Every failure is reported as one line on stderr naming the tool (CLI11's errors)
// or the file / layer / device (the library's Error, logged by spdlog).
#pragma once

#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "exit_codes.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::apps {

/// `run` is called after a successful parse and returns the exit code; it throws CommandLineError for
/// a combination of flags CLI11 cannot check (exit 2) and Error for everything else (exit 1). Output
/// that could not be written to stdout (a full disk, a closed pipe) is a failure too.
template <typename Run>
int parse_then_run(CLI::App& app, int argc, char** argv, Run run) {
    const std::string tool = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "fpgacnn";
    app.failure_message([tool](const CLI::App*, const CLI::Error& e) {
        return tool + ": " + e.what() + " (run with --help for the flags)\n";
    });
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? kExitSuccess : kExitCommandLine;
    }
    int code = kExitFailure;
    try {
        code = run();
    } catch (const CommandLineError& e) {
        std::cerr << tool << ": " << e.what() << " (run with --help for the flags)" << std::endl;
        return kExitCommandLine;
    } catch (const Error& e) {
        spdlog::error("{}", e.what());
        return kExitFailure;
    } catch (const std::exception& e) {
        spdlog::error("unexpected failure: {}", e.what());
        return kExitFailure;
    }
    std::cout.flush();
    if (!std::cout) {
        spdlog::error("cannot write the results to stdout (disk full or output closed)");
        return kExitFailure;
    }
    return code;
}

}  // namespace fpgacnn::apps

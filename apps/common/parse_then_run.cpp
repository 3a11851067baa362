#include "parse_then_run.hpp"

#include <exception>
#include <filesystem>
#include <iostream>
#include <string>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "exit_codes.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/version.hpp"

namespace fpgacnn::apps {

int parse_then_run(CLI::App& app, int argc, char** argv, const std::function<int()>& run) {
    const std::string tool = argc > 0 ? std::filesystem::path(argv[0]).filename().string() : "fpgacnn";
    app.failure_message([tool](const CLI::App*, const CLI::Error& e) {
        return tool + ": " + e.what() + " (run with --help for the flags)\n";
    });
    // Every tool's --version: the library's version, git describe and what this build holds.
    app.set_version_flag("--version", [tool] { return version_text(tool); });
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

int parse_then_run(const char* description, const std::function<void(CLI::App&)>& add_flags, int argc,
                   char** argv, const std::function<int()>& run) {
    CLI::App app{description};
    add_flags(app);
    return parse_then_run(app, argc, argv, run);
}

}  // namespace fpgacnn::apps

// The middle of every tool's main: parse the command line, then run, with the exit codes of
// exit_codes.hpp. Every failure is reported as one line on stderr naming the tool (CLI11's errors)
// or the file / layer / device (the library's Error, logged by spdlog).
//
// CLI11 is header-only and instantiates its parser in every file that builds or runs a CLI::App
// (about 10 s of compile time each, measured): so CLI11 is included only where a tool's flags are
// declared (its *_options.cpp, or the main.cpp of a one-file tool) and here in parse_then_run.cpp;
// a main() that only runs the tool passes the flag declarations in as a function and needs none.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace fpgacnn::apps {

/// `run` is called after a successful parse and returns the exit code; it throws CommandLineError for
/// a combination of flags CLI11 cannot check (exit 2) and Error for everything else (exit 1). Output
/// that could not be written to stdout (a full disk, a closed pipe) is a failure too.
int parse_then_run(CLI::App& app, int argc, char** argv, const std::function<int()>& run);

/// The same for a tool whose flags are declared elsewhere: a CLI::App described by `description`,
/// given its flags by `add_flags`.
int parse_then_run(const char* description, const std::function<void(CLI::App&)>& add_flags, int argc,
                   char** argv, const std::function<int()>& run);

}  // namespace fpgacnn::apps

// fpgacnn-synth-weights: writes deterministic synthetic darknet .weights for a cfg that has no
// trained weights (e.g. Debian's yolov2.cfg), so the whole stack can run and be cross-checked.
// Exit codes: apps/common/exit_codes.hpp.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include "../common/exit_codes.hpp"
#include "../common/flag_checks.hpp"
#include "../common/guarded_main.hpp"
#include "../common/output_paths.hpp"
#include "../common/parse_then_run.hpp"

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"

namespace {

struct Options {
    std::string cfg;
    std::string input_size;
    std::uint64_t seed = 0;
    std::string out;
    bool quiet = false;
};

int run(const Options& options) {
    fpgacnn::apps::check_output_file(options.out, "--out");
    std::optional<fpgacnn::InputSizeOverride> input_override;
    if (!options.input_size.empty()) input_override = fpgacnn::parse_input_size(options.input_size);
    fpgacnn::Network network = fpgacnn::load_darknet_cfg(options.cfg, input_override);
    fpgacnn::fill_synthetic_weights(network, options.seed);
    fpgacnn::save_darknet_weights(network, options.out);
    spdlog::info("{}: synthetic weights for {} ({} layers, seed {}), {} bytes", options.out, options.cfg,
                 network.layers.size(), options.seed, fpgacnn::expected_weights_bytes(network));
    return fpgacnn::apps::kExitSuccess;
}

int run_command_line(int argc, char** argv) {
    CLI::App app{
        "fpgacnn-synth-weights: write deterministic synthetic darknet .weights for a cfg\n"
        "(same cfg and seed give the same bytes on every machine)"};
    Options options;
    app.add_option("--cfg", options.cfg, "darknet .cfg file")->required()->check(CLI::ExistingFile);
    fpgacnn::apps::add_input_size_option(app, options.input_size,
                                         "network input size WxH, replaces the cfg's width/height");
    app.add_option("--seed", options.seed, "seed of the pseudo-random generator (0 .. 2^64 - 1)")
        ->required()
        ->check(fpgacnn::apps::unsigned_64());
    app.add_option("--out", options.out, "output .weights file (darknet format 0.2)")->required();
    app.add_flag("-q,--quiet", options.quiet, "print errors only");
    return fpgacnn::apps::parse_then_run(app, argc, argv, [&] {
        fpgacnn::set_log_level(options.quiet ? fpgacnn::LogLevel::Quiet : fpgacnn::LogLevel::Info);
        return run(options);
    });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-synth-weights", run_command_line, argc, argv);
}

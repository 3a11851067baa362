// fpgacnn-bench: frames per second (single-frame and pipelined), latency percentiles, stage and
// per-layer times, GOP/s and power of a darknet YOLOv2 network on a device.
// Exit codes: apps/common/exit_codes.hpp.
#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/json_text.hpp"
#include "../common/model_options.hpp"
#include "../common/output_paths.hpp"
#include "../common/parse_then_run.hpp"
#include "../detect/result_writers.hpp"
#include "bench_options.hpp"
#include "bench_report.hpp"
#include "bench_run.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"
#include "roofline_plot.hpp"

namespace fs = std::filesystem;
using namespace fpgacnn;
using namespace fpgacnn::bench;

namespace {

// Before the model loads: the flags agree and every output can be written.
void check_command_line(const BenchOptions& options) {
    if (std::string problem = apps::device_options_problem(options.precision, options.quantized);
        !problem.empty())
        throw apps::CommandLineError(problem);
    if (!options.plot.empty() && fs::path(options.plot).extension() != ".png")
        throw apps::CommandLineError("--plot writes a PNG: give a file name ending in .png (got '" +
                                     options.plot + "')");
    if (!options.csv.empty()) apps::check_output_file(options.csv, "--csv");
    if (!options.plot.empty()) apps::check_output_file(options.plot, "--plot");
}

int run(const BenchOptions& options) {
    const BenchResult result = run_benchmark(options);
    if (!options.csv.empty())
        detect::write_text_file(options.csv, layers_to_csv(result), "the per-layer CSV");
    if (!options.plot.empty()) detect::write_image_file(options.plot, draw_bench_plot(result), "the plot");
    if (options.json) {
        std::cout << apps::json_text(result_to_json(result), 2) << std::endl;
    } else {
        std::cout << result_to_text(result) << std::flush;
    }
    return apps::kExitSuccess;
}

int bench_main(int argc, char** argv) {
    CLI::App app{"fpgacnn-bench: speed, per-layer times and power of a darknet YOLOv2 network on a device"};
    BenchOptions options;
    add_bench_options(app, options);
    return apps::parse_then_run(app, argc, argv, [&] {
        set_log_level(log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info));
        check_command_line(options);
        return run(options);
    });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-bench", bench_main, argc, argv);
}

// fpgacnn-bench: frames per second (single-frame and pipelined), latency percentiles, stage and
// per-layer times, GOP/s and power of a darknet YOLOv2 network on a device.
// Exit codes: apps/common/exit_codes.hpp.
#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/json_text.hpp"
#include "../common/model_flag_problems.hpp"
#include "../common/output_paths.hpp"
#include "../common/parse_then_run.hpp"
#include "../detect/result_writers.hpp"
#include "bench_options.hpp"
#include "bench_report.hpp"
#include "bench_run.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"
#include "roofline_plot.hpp"
#ifdef FPGACNN_BENCH_SERVER
#include "server_load.hpp"
#endif

namespace fs = std::filesystem;
using namespace fpgacnn;
using namespace fpgacnn::bench;

namespace {

// Before the model loads: the flags agree and every output can be written.
void check_command_line(const BenchOptions& options) {
    if (!options.server.empty()) {
        if (options.model.empty())
            throw apps::CommandLineError("--server needs --model NAME (the model to call)");
        if (!options.plot.empty() || !options.csv.empty())
            throw apps::CommandLineError("--plot and --csv describe a model run here, not --server");
        return;
    }
    if (options.cfg.empty())
        throw apps::CommandLineError("--cfg is required (or --server to measure a running fpgacnn-serve)");
    if (std::string problem = apps::device_options_problem(options.precision, options.quantized);
        !problem.empty())
        throw apps::CommandLineError(problem);
    if (!options.plot.empty() && fs::path(options.plot).extension() != ".png")
        throw apps::CommandLineError("--plot writes a PNG: give a file name ending in .png (got '" +
                                     options.plot + "')");
    if (!options.csv.empty()) apps::check_output_file(options.csv, "--csv");
    if (!options.plot.empty()) apps::check_output_file(options.plot, "--plot");
}

#ifdef FPGACNN_BENCH_SERVER
int run_against_server(const BenchOptions& options) {
    ServerLoadOptions load;
    load.address = options.server;
    load.model = options.model;
    load.clients = options.clients;
    load.send_pixels = options.send_pixels;
    load.shared_memory = options.shared_memory;
    load.requests = options.requests;
    load.seconds = options.seconds;
    load.images = frame_image_paths(options.images);
    const ServerLoadResult result = run_server_load(load);
    if (options.json) {
        std::cout << apps::json_text(server_load_to_json(result), 2) << std::endl;
    } else {
        std::cout << server_load_to_text(result) << std::flush;
    }
    if (result.answered < result.sent || result.wrong_ids > 0) {
        spdlog::error("{} of {} requests failed, {} answers carried another request's id",
                      result.sent - result.answered, result.sent, result.wrong_ids);
        return apps::kExitFailure;
    }
    return apps::kExitSuccess;
}
#endif

int run(const BenchOptions& options) {
#ifdef FPGACNN_BENCH_SERVER
    if (!options.server.empty()) return run_against_server(options);
#endif
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
    BenchOptions options;
    return apps::parse_then_run(
        "fpgacnn-bench: speed, per-layer times and power of a darknet YOLOv2 network on a device",
        [&](CLI::App& app) { add_bench_options(app, options); }, argc, argv,
        [&] {
            set_log_level(log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info));
            check_command_line(options);
            return run(options);
        });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-bench", bench_main, argc, argv);
}

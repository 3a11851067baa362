// fpgacnn-bench: frames per second (single-frame and pipelined), latency percentiles, stage and
// per-layer times, GOP/s and power of a darknet YOLOv2 network on a device.
// Exit codes: 0 success, 1 a model/device/output error (message on stderr), 2 bad command line.
#include <filesystem>
#include <iostream>

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "../common/guarded_main.hpp"
#include "../common/model_options.hpp"
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

// Problems the command line alone shows; empty when there are none.
std::string command_line_problem(const BenchOptions& options) {
    if (std::string problem = apps::device_options_problem(options.precision, options.quantized);
        !problem.empty())
        return problem;
    if (!options.plot.empty() && fs::path(options.plot).extension() != ".png")
        return "--plot writes a PNG: give a file name ending in .png (got '" + options.plot + "')";
    for (const std::string* path : {&options.csv, &options.plot}) {
        if (path->empty()) continue;
        const fs::path folder = fs::path(*path).parent_path();
        if (!folder.empty() && !fs::is_directory(folder))
            return *path + ": the folder " + folder.string() + " does not exist";
    }
    return {};
}

int run(const BenchOptions& options) {
    const BenchResult result = run_benchmark(options);
    if (!options.csv.empty())
        detect::write_text_file(options.csv, layers_to_csv(result), "the per-layer CSV");
    if (!options.plot.empty()) detect::write_image_file(options.plot, draw_bench_plot(result));
    if (options.json) {
        std::cout << result_to_json(result).dump(2) << std::endl;
    } else {
        std::cout << result_to_text(result) << std::flush;
    }
    return 0;
}

int bench_main(int argc, char** argv) {
    CLI::App app{"fpgacnn-bench: speed, per-layer times and power of a darknet YOLOv2 network on a device"};
    BenchOptions options;
    add_bench_options(app, options);
    return apps::parse_then_run(app, argc, argv, [&] {
        if (const std::string problem = command_line_problem(options); !problem.empty()) {
            std::cerr << "fpgacnn-bench: " << problem << "\n";
            return 2;
        }
        set_log_level(log_level_from_flags(options.quiet, options.verbosity, LogLevel::Info));
        return run(options);
    });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-bench", bench_main, argc, argv);
}

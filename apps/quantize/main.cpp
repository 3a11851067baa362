// fpgacnn-quantize: calibrates a darknet model to int16 dynamic fixed point and writes the
// quantized model file that fpgacnn-detect --precision int16 --quantized FILE runs.
// Exit codes: apps/common/exit_codes.hpp.
#include <iostream>

#include <spdlog/spdlog.h>

#include "../common/exit_codes.hpp"
#include "../common/guarded_main.hpp"
#include "../common/json_text.hpp"
#include "../common/parse_then_run.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"
#include "quantize_options.hpp"
#include "quantize_run.hpp"
#include "report_writers.hpp"

using namespace fpgacnn;
using namespace fpgacnn::quantize;

namespace {

LogLevel log_level(const QuantizeOptions& options) {
    return log_level_from_flags(
        options.quiet, options.verbosity,
        LogLevel::Warn);  // the notes are printed in the result; info would repeat them
}

int run(const QuantizeOptions& options) {
    const QuantizeOutcome outcome = quantize_model(options);
    if (options.json) {
        std::cout << apps::json_text(outcome_to_json(outcome), 2) << std::endl;
    } else {
        std::cout << outcome_to_text(outcome) << std::flush;
    }
    return apps::kExitSuccess;
}

int quantize_main(int argc, char** argv) {
    QuantizeOptions options;
    return apps::parse_then_run(
        "fpgacnn-quantize: calibrate a darknet model to fixed point (int16, int8 or per-layer widths) and "
        "write a quantized model",
        [&](CLI::App& app) { add_quantize_options(app, options); }, argc, argv,
        [&] {
            set_log_level(log_level(options));
            return run(options);
        });
}

}  // namespace

int main(int argc, char** argv) {
    return fpgacnn::apps::guarded_main("fpgacnn-quantize", quantize_main, argc, argv);
}

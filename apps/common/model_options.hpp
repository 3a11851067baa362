// The model and detector flags the tools share (fpgacnn-detect, fpgacnn-camera and, for the device
// flags, fpgacnn-bench), so all spell and check them the same way.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "flag_checks.hpp"
#include "fpgacnn/backend.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/golden_twin.hpp"
#include "model_flag_problems.hpp"

namespace fpgacnn::apps {

/// --cfg (required), --weights (required unless --quantized: model_files_problem), --names.
inline void add_model_file_options(CLI::App& app, std::string& cfg, std::string& weights,
                                   std::string& names) {
    app.add_option("--cfg", cfg, "darknet network .cfg")->required()->check(CLI::ExistingFile);
    app.add_option("--weights", weights,
                   "darknet .weights matching the cfg (optional with --quantized: the int16 model runs "
                   "alone; when given, it must be the weights that were quantized)")
        ->check(CLI::ExistingFile);
    app.add_option("--names", names, "class names file (one per line); default: class_<id>")
        ->check(CLI::ExistingFile);
}

/// --precision, parsed by parse_precision (its error names the valid values).
inline void add_precision_option(CLI::App& app, Precision& precision) {
    std::string names;
    for (const Precision value : kPrecisions) names += (names.empty() ? "" : ",") + precision_name(value);
    const CLI::Validator valid(
        [](std::string& text) {
            try {
                parse_precision(text);
                return std::string();
            } catch (const Error& e) {
                return std::string(e.what());
            }
        },
        "{" + names + "}");
    app.add_option_function<std::string>(
           "--precision", [&precision](const std::string& text) { precision = parse_precision(text); },
           "arithmetic: auto (with --quantized: the file's own widths; else int16 on accelerators, float on "
           "cpu) | float "
           "(the darknet reference) | int16 (dynamic fixed point, docs/arithmetic.md; bit-identical on every "
           "device) | int8 (conv layers' weights and outputs at 8 bits) | mixed (the per-layer widths of "
           "--quantized FILE)")
        ->check(valid)
        ->default_str(precision_name(precision));
}

/// --device (its help lists the device registry's drivers), --precision, --quantized.
inline void add_device_options(CLI::App& app, std::string& device, Precision& precision,
                               std::string& quantized) {
    app.add_option("--device", device, device_option_help())->capture_default_str();
    add_precision_option(app, precision);
    app.add_option("--quantized", quantized,
                   "fixed point: the quantized model written by fpgacnn-quantize (default: calibrate on "
                   "darknet's sample images; mixed needs it)")
        ->check(CLI::ExistingFile);
}

/// --verify-every and --on-mismatch: golden-twin checking of device results (fpgacnn/golden_twin.hpp).
inline void add_verify_options(CLI::App& app, GoldenTwinOptions& verify) {
    app.add_option(
           "--verify-every", verify.every,
           "golden twin: recompute one frame in N on the CPU int16 backend and compare every layer of "
           "the device's results bit for bit; mismatches are logged with layer, channel and tile "
           "(0: off; devices only)")
        ->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    app.add_option_function<std::string>(
           "--on-mismatch",
           [&verify](const std::string& text) { verify.on_mismatch = parse_on_mismatch(text); },
           "log | fallback: after a golden-twin mismatch, only log and count it, or also run that frame and "
           "the "
           "rest of the run on the CPU int16 backend")
        ->check(CLI::IsMember({on_mismatch_name(OnMismatch::Log), on_mismatch_name(OnMismatch::Fallback)}))
        ->default_str(on_mismatch_name(verify.on_mismatch));
}

/// --thresh and --nms.
inline void add_threshold_options(CLI::App& app, float& thresh, float& nms) {
    app.add_option("--thresh", thresh, "detection probability threshold")
        ->check(finite_range(0.0, 1.0))
        ->capture_default_str();
    app.add_option("--nms", nms, "per-class NMS IoU threshold (0 disables NMS)")
        ->check(finite_range(0.0, 1.0))
        ->capture_default_str();
}

/// -v/--verbose (repeatable) and -q/--quiet.
inline void add_log_options(CLI::App& app, int& verbosity, bool& quiet) {
    app.add_flag("-v,--verbose", verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", quiet, "only errors on stderr");
}

}  // namespace fpgacnn::apps

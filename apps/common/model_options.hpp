// The model and detector flags fpgacnn-detect and fpgacnn-camera share, so both spell and check
// them the same way.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace fpgacnn::apps {

/// --cfg, --weights (both required), --names.
inline void add_model_file_options(CLI::App& app, std::string& cfg, std::string& weights,
                                   std::string& names) {
    app.add_option("--cfg", cfg, "darknet network .cfg")->required()->check(CLI::ExistingFile);
    app.add_option("--weights", weights, "darknet .weights matching the cfg")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--names", names, "class names file (one per line); default: class_<id>")
        ->check(CLI::ExistingFile);
}

/// --device, --precision, --quantized.
inline void add_device_options(CLI::App& app, std::string& device, std::string& precision,
                               std::string& quantized) {
    app.add_option(
           "--device", device,
           "where layers run: auto (an accelerator if present, else cpu) | cpu | emu (the FPGA kernel "
           "in-process) | emu:lenient | xrt:<index|BDF>[/cu<k>][@<path.xclbin>] (Alveo, Zynq UltraScale+) | "
           "uio:NAME[:addr32|:addr64][:poll][:udmabufN] (Zynq through generic-uio + u-dma-buf; "
           "$FPGACNN_UIO_ROOT moves /sys, /dev and /proc); see docs/drivers.md")
        ->capture_default_str();
    app.add_option(
           "--precision", precision,
           "arithmetic: auto (int16 on accelerators, float on cpu) | float (the darknet reference) | int16 "
           "(dynamic fixed point, docs/arithmetic.md; bit-identical on every device)")
        ->check(CLI::IsMember({"auto", "float", "int16"}))
        ->capture_default_str();
    app.add_option("--quantized", quantized,
                   "int16: the quantized model written by fpgacnn-quantize (default: calibrate on darknet's "
                   "sample images)")
        ->check(CLI::ExistingFile);
}

/// A --precision / --quantized combination CLI11 cannot reject by itself; empty when fine.
inline std::string device_options_problem(const std::string& precision, const std::string& quantized) {
    if (!quantized.empty() && precision == "float")
        return "--quantized needs --precision int16 (or auto with an accelerator device)";
    return "";
}

/// --thresh and --nms.
inline void add_threshold_options(CLI::App& app, float& thresh, float& nms) {
    app.add_option("--thresh", thresh, "detection probability threshold")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
    app.add_option("--nms", nms, "per-class NMS IoU threshold (0 disables NMS)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
}

/// -v/--verbose (repeatable) and -q/--quiet.
inline void add_log_options(CLI::App& app, int& verbosity, bool& quiet) {
    app.add_flag("-v,--verbose", verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", quiet, "only errors on stderr");
}

}  // namespace fpgacnn::apps

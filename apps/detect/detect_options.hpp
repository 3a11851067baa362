// fpgacnn-detect's command line.
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/golden_twin.hpp"

namespace CLI {
class App;
}

namespace fpgacnn::detect {

struct DetectOptions {
    std::string cfg;
    std::string weights;
    std::string names;
    std::string input_size;  // "WxH", empty: the cfg's
    std::string device = "auto";
    Precision precision = Precision::Auto;
    std::string fallback = "none";  // none | cpu: after a device error, continue on the CPU int16 backend
    GoldenTwinOptions verify;       // --verify-every, --on-mismatch
    std::string quantized;          // int16: a quantized model file; empty: calibrate on the input images
    float thresh = 0.5f;
    float hier_thresh = 0.5f;
    float nms = 0.45f;
    bool json = false;
    bool strict_images = false;  // refuse damaged images (exit 1) instead of warning
    std::string output_dir;
    std::string dump_region;
    std::string dump_layers;
    int verbosity = 0;
    bool quiet = false;
    std::vector<std::string> inputs;
};

void add_detect_options(CLI::App& app, DetectOptions& options);

/// Whether the command line asks for --list-devices (which needs no model or inputs).
bool wants_device_list(int argc, char** argv);

}  // namespace fpgacnn::detect

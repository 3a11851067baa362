#include "detect_options.hpp"

#include <cstring>

#include <CLI/CLI.hpp>

#include "../common/flag_checks.hpp"
#include "../common/model_options.hpp"

namespace fpgacnn::detect {

bool wants_device_list(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--list-devices") == 0) return true;
    }
    return false;
}

void add_detect_options(CLI::App& app, DetectOptions& options) {
    apps::add_model_file_options(app, options.cfg, options.weights, options.names);
    apps::add_input_size_option(app, options.input_size,
                                "network input size WxH, overriding the cfg (e.g. 416x416)");
    apps::add_device_options(app, options.device, options.precision, options.quantized);
    app.add_option("--fallback", options.fallback,
                   "none | cpu: when the device fails (cannot open, a layer times out, it vanishes), log it "
                   "and run this and later frames on the CPU int16 backend (identical results)")
        ->check(CLI::IsMember({"none", "cpu"}))
        ->capture_default_str();
    apps::add_verify_options(app, options.verify);
    app.add_flag("--list-devices", "print the devices --device can use (and why others cannot), then exit");
    apps::add_threshold_options(app, options.thresh, options.nms);
    app.add_option("--hier", options.hier_thresh, "hierarchy threshold (softmax trees only)")
        ->check(apps::finite_range(0.0, 1.0))
        ->capture_default_str();
    app.add_flag("--json", options.json,
                 "print one JSON object per image on stdout (invalid UTF-8 in names becomes U+FFFD)");
    app.add_flag("--strict-images", options.strict_images,
                 "refuse damaged images (a truncated JPEG, a corrupt scan) instead of warning and "
                 "detecting on what decodes");
    app.add_option("--output", options.output_dir, "write annotated images (and videos) into this folder");
    app.add_option("--dump-region", options.dump_region,
                   "write the region layer's output as raw float32 LE (darknet's l.output); one image only");
    app.add_option("--dump-layers", options.dump_layers,
                   "write every layer's output as DIR/layer_NN.bin (raw float32 LE); one image only");
    apps::add_log_options(app, options.verbosity, options.quiet);
    app.add_option("inputs", options.inputs, "images, folders of images, or video files")->required();
}

}  // namespace fpgacnn::detect

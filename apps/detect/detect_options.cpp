#include "detect_options.hpp"

#include "../common/model_options.hpp"

namespace fpgacnn::detect {

void add_detect_options(CLI::App& app, DetectOptions& options) {
    apps::add_model_file_options(app, options.cfg, options.weights, options.names);
    app.add_option("--input", options.input_size,
                   "network input size WxH, overriding the cfg (e.g. 416x416)");
    apps::add_device_options(app, options.device, options.precision, options.quantized);
    apps::add_threshold_options(app, options.thresh, options.nms);
    app.add_option("--hier", options.hier_thresh, "hierarchy threshold (softmax trees only)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
    app.add_flag("--json", options.json, "print one JSON object per image on stdout");
    app.add_option("--output", options.output_dir, "write annotated images (and videos) into this folder");
    app.add_option("--dump-region", options.dump_region,
                   "write the region layer's output as raw float32 LE (darknet's l.output); one image only");
    app.add_option("--dump-layers", options.dump_layers,
                   "write every layer's output as DIR/layer_NN.bin (raw float32 LE); one image only");
    apps::add_log_options(app, options.verbosity, options.quiet);
    app.add_option("inputs", options.inputs, "images, folders of images, or video files")->required();
}

}  // namespace fpgacnn::detect

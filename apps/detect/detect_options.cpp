#include "detect_options.hpp"

#include <cstring>

namespace fpgacnn::detect {

bool wants_device_list(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--list-devices") == 0) return true;
    }
    return false;
}

void add_detect_options(CLI::App& app, DetectOptions& options) {
    app.add_option("--cfg", options.cfg, "darknet network .cfg")->required()->check(CLI::ExistingFile);
    app.add_option("--weights", options.weights, "darknet .weights matching the cfg")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--names", options.names, "class names file (one per line); default: class_<id>")
        ->check(CLI::ExistingFile);
    app.add_option("--input", options.input_size,
                   "network input size WxH, overriding the cfg (e.g. 416x416)");
    app.add_option(
           "--device", options.device,
           "where layers run: auto (an accelerator if present, else cpu) | cpu | emu (the FPGA kernel "
           "in-process) | emu:lenient | uio:NAME[:addr32|:addr64][:poll][:udmabufN] (the IP on a Zynq "
           "through "
           "generic-uio + u-dma-buf; $FPGACNN_UIO_ROOT moves /sys, /dev and /proc)")
        ->capture_default_str();
    app.add_option(
           "--fallback", options.fallback,
           "none | cpu: when the device fails (cannot open, a layer times out, it vanishes), log it and "
           "run this and later frames on the CPU int16 backend (identical results)")
        ->check(CLI::IsMember({"none", "cpu"}))
        ->capture_default_str();
    app.add_flag("--list-devices", "print the devices --device can use (and why others cannot), then exit");
    app.add_option(
           "--precision", options.precision,
           "arithmetic: auto (int16 on accelerators, float on cpu) | float (the darknet reference) | int16 "
           "(dynamic fixed point, docs/arithmetic.md; bit-identical on every device)")
        ->check(CLI::IsMember({"auto", "float", "int16"}))
        ->capture_default_str();
    app.add_option("--quantized", options.quantized,
                   "int16: the quantized model written by fpgacnn-quantize (default: calibrate on darknet's "
                   "sample images)")
        ->check(CLI::ExistingFile);
    app.add_option("--thresh", options.thresh, "detection probability threshold")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
    app.add_option("--hier", options.hier_thresh, "hierarchy threshold (softmax trees only)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
    app.add_option("--nms", options.nms, "per-class NMS IoU threshold (0 disables NMS)")
        ->check(CLI::Range(0.0f, 1.0f))
        ->capture_default_str();
    app.add_flag("--json", options.json, "print one JSON object per image on stdout");
    app.add_option("--output", options.output_dir, "write annotated images (and videos) into this folder");
    app.add_option("--dump-region", options.dump_region,
                   "write the region layer's output as raw float32 LE (darknet's l.output); one image only");
    app.add_option("--dump-layers", options.dump_layers,
                   "write every layer's output as DIR/layer_NN.bin (raw float32 LE); one image only");
    app.add_flag("-v,--verbose", options.verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", options.quiet, "only errors on stderr");
    app.add_option("inputs", options.inputs, "images, folders of images, or video files")->required();
}

}  // namespace fpgacnn::detect

#include "quantize_options.hpp"

#include "../common/flag_checks.hpp"

namespace fpgacnn::quantize {

void add_quantize_options(CLI::App& app, QuantizeOptions& options) {
    app.add_option("--cfg", options.cfg, "darknet network .cfg")->required()->check(CLI::ExistingFile);
    app.add_option("--weights", options.weights, "darknet .weights matching the cfg")
        ->required()
        ->check(CLI::ExistingFile);
    apps::add_input_size_option(app, options.input_size,
                                "network input size WxH, overriding the cfg (e.g. 416x416)");
    app.add_option("--images", options.images,
                   "calibration images: files and/or folders (default: darknet's dog, person, horses, kite, "
                   "eagle, giraffe samples)")
        ->check(CLI::ExistingPath);
    app.add_option(
           "--percentile", options.percentile,
           "per layer, the % of float activations that must fit without saturating (100 = the maximum)")
        ->check(apps::finite_range(50.0, 100.0))
        ->capture_default_str();
    app.add_option(
           "--activation-margin", options.activation_margin_bits,
           "bits of headroom above the largest calibration activation (against saturation on other images)")
        ->check(CLI::Range(0, 8))
        ->capture_default_str();
    app.add_option("--accumulator-margin", options.accumulator_margin_bits,
                   "bits the int32 accumulators stay below the wrap on the calibration images")
        ->check(apps::finite_range(0.0, 8.0))
        ->capture_default_str();
    app.add_option("--out", options.out, "the quantized model file to write")->required();
    app.add_flag("--report", options.report,
                 "also run float and int16 on the calibration images: per-layer SQNR, detection agreement");
    app.add_flag("--json", options.json, "print the result (and report) as one JSON object on stdout");
    app.add_flag("-v,--verbose", options.verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", options.quiet, "only errors on stderr (no progress bar)");
}

}  // namespace fpgacnn::quantize

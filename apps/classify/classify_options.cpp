#include "classify_options.hpp"

#include <CLI/CLI.hpp>

#include "../common/model_options.hpp"

namespace fpgacnn::classify {

void add_classify_options(CLI::App& app, ClassifyOptions& options) {
    app.add_option("--cfg", options.cfg,
                   "darknet classifier .cfg (darknet19.cfg, resnet50.cfg, alexnet.cfg, ...)")
        ->required()
        ->check(CLI::ExistingFile);
    app.add_option("--weights", options.weights,
                   "darknet .weights matching the cfg (optional with --quantized: the fixed-point model runs "
                   "alone)")
        ->check(CLI::ExistingFile);
    app.add_option("--labels", options.labels,
                   std::string("class labels, one per line (default: ") + kDefaultLabels +
                       " when installed, else class_<id>)")
        ->check(CLI::ExistingFile);
    apps::add_input_size_option(app, options.input_size,
                                "network input size WxH, overriding the cfg (e.g. 224x224)");
    apps::add_device_options(app, options.device, options.precision, options.quantized);
    app.add_option("--top", options.top, "classes to print per image")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_flag("--json", options.json, "print one JSON object per image on stdout");
    apps::add_log_options(app, options.verbosity, options.quiet);
    app.add_option("images", options.images, "image files")->required()->check(CLI::ExistingFile);
}

}  // namespace fpgacnn::classify

#include "load_or_calibrate.hpp"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/quantized_file.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::apps {

Network load_model_files(const std::string& cfg, const std::string& weights,
                         std::optional<InputSizeOverride> input_override) {
    if (weights.empty()) return load_darknet_cfg(cfg, input_override);
    return load_darknet_model(cfg, weights, input_override);
}

namespace {

std::shared_ptr<const QuantizedNetwork> shapes_only(QuantizedNetwork model, Network& network) {
    release_float_parameters(model.network);
    network = model.network;  // the caller's copy: shapes only as well
    return std::make_shared<QuantizedNetwork>(std::move(model));
}

}  // namespace

std::shared_ptr<const QuantizedNetwork> load_or_calibrate(Network& network, const std::string& quantized_file,
                                                          bool progress,
                                                          const std::vector<std::string>& fallback_images,
                                                          Precision precision) {
    // auto: a file's own widths, or calibration at 16 bits.
    if (precision == Precision::Auto)
        precision = quantized_file.empty() ? Precision::Int16 : Precision::Mixed;
    if (!quantized_file.empty()) {
        // Moved in, not copied: a second float copy of yolov2 alone is 200 MB.
        QuantizedNetwork model =
            load_quantized_network(quantized_file, std::move(network), nullptr, ParameterLoading::OnDemand);
        require_precision_widths(model, precision, quantized_file);
        spdlog::info("{}: fixed-point model ({}), input exponent {}{}", quantized_file, width_summary(model),
                     model.input_q,
                     model.network.weights_loaded ? " (quantized from the given --weights)" : "");
        return shapes_only(std::move(model), network);
    }
    if (precision == Precision::Mixed) {
        throw Error(
            "--precision mixed runs the per-layer widths of a quantized model file: pass --quantized FILE "
            "(fpgacnn-quantize --widths or --explore writes one), or use --precision int16 or int8");
    }
    std::vector<std::string> images;
    for (const std::string& image : default_calibration_images()) {
        if (fs::exists(image)) images.push_back(image);
    }
    const char* origin = "darknet's sample images";
    if (images.empty()) {
        origin = "the input images";
        images = fallback_images;
    }
    if (images.empty()) {
        throw Error(
            precision_name(precision) +
            " needs calibration images: pass --quantized FILE from fpgacnn-quantize (darknet's sample "
            "images are not installed)");
    }
    spdlog::warn(
        "no --quantized file: calibrating {} on {} ({}) (run fpgacnn-quantize once and pass "
        "--quantized to skip this)",
        precision_name(precision), origin, images.size());
    CalibrationOptions calibration;
    calibration.progress = progress;
    if (precision == Precision::Int8) calibration.widths = uniform_conv_widths(network, arith::kNarrowBits);
    QuantizedNetwork model = calibrate(network, images, calibration).quantized;
    return shapes_only(std::move(model), network);
}

BackendOptions resolve_backend_options(Network& network, const std::string& device, Precision precision,
                                       const std::string& quantized_file, bool progress,
                                       const std::vector<std::string>& fallback_images) {
    BackendOptions options;
    options.device = resolve_device(device);
    // auto with a model file runs it (on the CPU too, where auto alone means float).
    const bool run_the_file = precision == Precision::Auto && !quantized_file.empty();
    options.precision = run_the_file ? Precision::Mixed : resolve_precision(options.device, precision);
    if (is_fixed_point(options.precision)) {
        // `precision` may still be auto (resolved to int16 on a device): load_or_calibrate decides.
        options.quantized = load_or_calibrate(network, quantized_file, progress, fallback_images, precision);
        // auto runs the model's own widths: say which (reports print it; make_backend checks it).
        if (precision == Precision::Auto) options.precision = precision_of_widths(*options.quantized);
    }
    return options;
}

}  // namespace fpgacnn::apps

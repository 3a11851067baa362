#include "load_or_calibrate.hpp"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/error.hpp"
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
                                                          const std::vector<std::string>& fallback_images) {
    if (!quantized_file.empty()) {
        // Moved in, not copied: a second float copy of yolov2 alone is 200 MB.
        QuantizedNetwork model =
            load_quantized_network(quantized_file, std::move(network), nullptr, ParameterLoading::OnDemand);
        spdlog::info("{}: int16 model, input exponent {}{}", quantized_file, model.input_q,
                     model.network.weights_loaded ? " (quantized from the given --weights)" : "");
        return shapes_only(std::move(model), network);
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
            "int16 needs calibration images: pass --quantized FILE from fpgacnn-quantize (darknet's sample "
            "images are not installed)");
    }
    spdlog::warn(
        "no --quantized file: calibrating int16 on {} ({}) (run fpgacnn-quantize once and pass "
        "--quantized to skip this)",
        origin, images.size());
    CalibrationOptions calibration;
    calibration.progress = progress;
    QuantizedNetwork model = calibrate(network, images, calibration).quantized;
    return shapes_only(std::move(model), network);
}

BackendOptions resolve_backend_options(Network& network, const std::string& device, Precision precision,
                                       const std::string& quantized_file, bool progress,
                                       const std::vector<std::string>& fallback_images) {
    BackendOptions options;
    options.device = resolve_device(device);
    options.precision = resolve_precision(options.device, precision);
    if (options.precision == Precision::Int16)
        options.quantized = load_or_calibrate(network, quantized_file, progress, fallback_images);
    return options;
}

}  // namespace fpgacnn::apps

#include "load_or_calibrate.hpp"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/quantized_file.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::apps {

std::shared_ptr<const QuantizedNetwork> load_or_calibrate(const Network& network,
                                                          const std::string& quantized_file, bool progress,
                                                          const std::vector<std::string>& fallback_images) {
    if (!quantized_file.empty()) {
        auto model = std::make_shared<QuantizedNetwork>(load_quantized_network(quantized_file, network));
        spdlog::info("{}: int16 model, input exponent {}", quantized_file, model->input_q);
        return model;
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
    return std::make_shared<QuantizedNetwork>(calibrate(network, images, calibration).quantized);
}

BackendOptions resolve_backend_options(const Network& network, const std::string& device, Precision precision,
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

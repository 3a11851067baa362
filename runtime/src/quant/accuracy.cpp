// Float vs int16, each path fed end to end from the same letterboxed image.
#include <cmath>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "fpgacnn/error.hpp"
#include "fpgacnn/progress_bar.hpp"
#include "fpgacnn/quant_accuracy.hpp"

namespace fpgacnn {

double LayerAccuracy::sqnr_db() const {
    if (noise_power == 0) return std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(signal_power / noise_power);
}

namespace {

// The detections every tool prints, from a [region] or the [yolo] heads alike (darknet's
// get_network_boxes, do_nms_sort, then the print order).
std::vector<Detection> detections(const Network& network, const std::vector<float>& output,
                                  const Image& image, float thresh, float nms) {
    std::vector<RegionBox> boxes = decode_network_output(network, output, image.w, image.h, thresh);
    if (nms > 0) nms_sort(boxes, network.output_classes(), nms);
    return collect_detections(boxes, thresh, image.w, image.h, {});
}

void accumulate(LayerAccuracy& layer, const std::vector<float>& reference,
                const std::vector<float>& quantized) {
    double signal = 0;
    double noise = 0;
    double max_error = layer.max_abs_error;
    for (std::size_t k = 0; k < reference.size(); ++k) {
        const double f = reference[k];
        const double error = f - static_cast<double>(quantized[k]);
        signal += f * f;
        noise += error * error;
        max_error = std::max(max_error, std::fabs(error));
    }
    layer.signal_power += signal;
    layer.noise_power += noise;
    layer.max_abs_error = max_error;
}

}  // namespace

AccuracyReport evaluate_quantization(const Network& network, Backend& reference, Backend& fixed_point,
                                     const std::vector<std::string>& image_paths,
                                     const AccuracyOptions& options) {
    if (image_paths.empty()) throw Error("the accuracy report needs at least one image");

    AccuracyReport report;
    report.layers.resize(network.layers.size());
    for (float thresh : options.thresholds) report.agreement.push_back(DetectionAgreement{thresh, 0, 0, 0});
    ProgressBar bar("comparing float and fixed point", static_cast<int>(image_paths.size()),
                    options.progress);
    for (const std::string& path : image_paths) {
        const Image image = load_image(path);
        const Image boxed = letterbox_image(image, network.input.w, network.input.h);
        const std::vector<float> float_output = reference.run(boxed.data.data());
        const std::vector<float> int16_output = fixed_point.run(boxed.data.data());
        for (std::size_t i = 0; i < network.layers.size(); ++i) {
            const int index = static_cast<int>(i);
            accumulate(report.layers[i], reference.layer_output(index), fixed_point.layer_output(index));
        }
        for (DetectionAgreement& agreement : report.agreement) {
            const auto wanted = detections(network, float_output, image, agreement.thresh, options.nms);
            const auto got = detections(network, int16_output, image, agreement.thresh, options.nms);
            agreement.float_detections += static_cast<int>(wanted.size());
            agreement.int16_detections += static_cast<int>(got.size());
            agreement.reproduced += count_reproduced(wanted, got, options.match_iou);
        }
        ++report.images;
        bar.step(std::filesystem::path(path).filename().string());
    }
    bar.finish(fmt::format("{} image(s)", report.images));
    return report;
}

}  // namespace fpgacnn

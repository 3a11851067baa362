#include "fpgacnn/detector.hpp"

#include <chrono>

#include "fpgacnn/error.hpp"

namespace fpgacnn {

Detector::Detector(Network network, std::vector<std::string> class_names, DetectorOptions options)
    : network_(std::move(network)), class_names_(std::move(class_names)), options_(std::move(options)) {
    if (!network_.weights_loaded) {
        throw Error(network_.cfg_path + ": the network has no weights loaded");
    }
    network_.region_layer_index();  // throws with a clear message for non-detector cfgs
    backend_ = make_backend(network_, options_.device, options_.precision, options_.quantized,
                            options_.keep_layer_outputs, options_.cpu_fallback);
}

Detector::~Detector() = default;

DetectionResult Detector::detect(const Image& image) {
    const auto start = std::chrono::steady_clock::now();
    const TensorShape& in = network_.input;
    const Image boxed = letterbox_image(image, in.w, in.h);
    region_output_ = backend_->run(boxed.data.data());

    const Layer& region_layer = network_.layers[network_.region_layer_index()];
    const RegionParams& region = region_layer.region();
    std::vector<RegionBox> boxes = decode_region(region, region_layer.output, region_output_.data(), image.w,
                                                 image.h, in.w, in.h, options_.thresh);
    if (options_.nms > 0) nms_sort(boxes, region.classes, options_.nms);

    DetectionResult result;
    result.image_w = image.w;
    result.image_h = image.h;
    result.detections = collect_detections(boxes, options_.thresh, image.w, image.h, class_names_);
    result.milliseconds =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

}  // namespace fpgacnn

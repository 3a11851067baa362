#include "fpgacnn/detector.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

#include "fpgacnn/error.hpp"
#include "pipeline/detection_steps.hpp"
#include "pipeline/frame_pipeline.hpp"
#include "pipeline/golden_twin_backend.hpp"

namespace fpgacnn {

using pipeline_detail::milliseconds_since;

Detector::Detector(Network network, std::vector<std::string> class_names, DetectorOptions options)
    : network_(std::move(network)), class_names_(std::move(class_names)), options_(std::move(options)) {
    // int16 runs from the quantized model's parameters alone; only the float path needs the weights.
    if (!network_.weights_loaded && !options_.backend.quantized && !options_.backend_factory) {
        throw Error(network_.cfg_path +
                    ": the network has no weights loaded: load its .weights, or run int16 with a quantized "
                    "model (BackendOptions::quantized)");
    }
    network_.output_layer_indices();  // throws with a clear message for non-detector cfgs
    if (network_.is_classifier()) {
        throw Error(network_.cfg_path +
                    " is a classifier (its output is a [softmax], no [region] or [yolo] layer); classify "
                    "with Classifier (fpgacnn/classifier.hpp) or fpgacnn-classify");
    }
    if (options_.max_in_flight < 1) throw Error("DetectorOptions::max_in_flight must be at least 1");
    if (options_.device_workers < 1) throw Error("DetectorOptions::device_workers must be at least 1");
    twin_state_ = std::make_shared<pipeline_detail::GoldenTwinState>(options_.verify);
    backend_ = new_backend();
}

Detector::~Detector() {
    running_pipeline_ = nullptr;
    pipeline_.reset();  // finishes the frames in flight while the backends still exist
}

std::unique_ptr<Backend> Detector::new_backend() const {
    if (options_.backend_factory) {
        std::unique_ptr<Backend> backend = options_.backend_factory();
        if (!backend) throw Error("DetectorOptions::backend_factory returned no backend");
        return with_golden_twin(std::move(backend));
    }
    return with_golden_twin(make_backend(network_, options_.backend));
}

std::unique_ptr<Backend> Detector::with_golden_twin(std::unique_ptr<Backend> backend) const {
    if (options_.verify.every == 0) return backend;  // off: the device backend as it is, no cost
    if (backend->device() == nullptr) {
        spdlog::warn(
            "golden twin (--verify-every) not used: {} is not a device (the CPU int16 backend is the "
            "reference itself)",
            backend->name());
        return backend;
    }
    if (!options_.backend.quantized) {
        throw Error(
            "golden-twin checking (--verify-every) needs the quantized network the device runs "
            "(DetectorOptions::backend.quantized)");
    }
    return std::make_unique<pipeline_detail::GoldenTwinBackend>(std::move(backend),
                                                                options_.backend.quantized, twin_state_);
}

VerificationStats Detector::verification() const { return twin_state_->stats(); }

DetectionResult Detector::detect(const Image& image) {
    return detect_letterboxed(image.w, image.h,
                              [&] { return pipeline_detail::prepare_input(network_, image); });
}

DetectionResult Detector::detect(const RgbPixels& pixels) {
    return detect_letterboxed(pixels.width, pixels.height,
                              [&] { return pipeline_detail::prepare_input(network_, pixels); });
}

DetectionResult Detector::detect(const FrameInput& frame) {
    if (frame.empty()) throw Error("Detector::detect: the frame is empty (no image, no pixels)");
    return detect_letterboxed(frame.width(), frame.height(),
                              [&] { return pipeline_detail::prepare_input(network_, frame); });
}

DetectionResult Detector::detect_letterboxed(int image_w, int image_h,
                                             const std::function<Image()>& letterbox) {
    std::lock_guard<std::mutex> lock(calls_);
    if (pipeline_) pipeline_->flush();  // backend_ is also the pipeline's first device worker

    using Clock = std::chrono::steady_clock;
    DetectionResult result;
    result.image_w = image_w;
    result.image_h = image_h;
    const auto start = Clock::now();
    const Image boxed = letterbox();
    result.pre_ms = milliseconds_since(start);

    const auto device_start = Clock::now();
    region_output_ = backend_->run(boxed.data.data());
    result.device_ms = milliseconds_since(device_start);

    const auto post_start = Clock::now();
    result.detections = pipeline_detail::decode_detections(network_, class_names_,
                                                           pipeline_detail::resolved_thresholds(options_, {}),
                                                           region_output_, image_w, image_h);
    result.post_ms = milliseconds_since(post_start);
    result.milliseconds = milliseconds_since(start);
    return result;
}

std::future<DetectionResult> Detector::submit(Image image, FrameThresholds thresholds) {
    return submit(std::make_shared<const Image>(std::move(image)), thresholds);
}

std::future<DetectionResult> Detector::submit(FrameInput frame, FrameThresholds thresholds) {
    if (frame.empty()) throw Error("Detector::submit: the frame is empty (no image, no pixels)");
    std::lock_guard<std::mutex> lock(calls_);
    if (!pipeline_) {
        std::vector<Backend*> workers{backend_.get()};
        for (int i = 1; i < options_.device_workers; ++i) {
            extra_backends_.push_back(new_backend());
            workers.push_back(extra_backends_.back().get());
        }
        pipeline_ = std::make_unique<pipeline_detail::FramePipeline>(network_, class_names_, options_,
                                                                     std::move(workers));
        running_pipeline_ = pipeline_.get();
    }
    return pipeline_->submit(std::move(frame), pipeline_detail::resolved_thresholds(options_, thresholds));
}

void Detector::flush() {
    std::lock_guard<std::mutex> lock(calls_);
    if (pipeline_) pipeline_->flush();
}

int Detector::frames_in_flight() const {
    const pipeline_detail::FramePipeline* pipeline = running_pipeline_.load();
    return pipeline ? pipeline->in_flight() : 0;
}

}  // namespace fpgacnn

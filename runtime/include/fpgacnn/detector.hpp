// The whole detection pipeline for one image: letterbox -> backend forward pass -> region decode
// -> NMS -> detections in pixels of the original image. detect() runs the three steps on the
// caller's thread; submit() runs them as a pipeline (pre-processing, device, post-processing on
// threads of their own) so consecutive frames overlap.
#pragma once

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/export.hpp"
#include "fpgacnn/frame_input.hpp"
#include "fpgacnn/golden_twin.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/quantized.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

/// How make_backend picks and builds a backend.
struct FPGACNN_API BackendOptions {
    /// A --device value (fpgacnn/drivers/device_registry.hpp): "auto" lists the devices each time,
    /// so callers that make several backends pass resolve_device()'s answer.
    std::string device = "auto";
    /// The arithmetic (resolve_precision(): Auto is int16 on accelerators, float on the CPU).
    Precision precision = Precision::Auto;
    /// int16 only: the network's exponents and int16 parameters (load_quantized_network or calibrate).
    std::shared_ptr<const QuantizedNetwork> quantized;
    /// Keep every layer's output for layer_output() (on a device: one extra sync per layer; on the CPU
    /// int16 backend: one buffer per layer instead of reusing dead layers' buffers). The float
    /// backend keeps them always.
    bool keep_layer_outputs = false;
    /// On an accelerator: when the device fails (cannot open, a layer times out, it vanishes), log
    /// the error and run this frame and all later ones on the CPU int16 backend (the same bits).
    bool cpu_fallback = false;
};

/// The backend for options.device and options.precision: the CPU float or int16 backend, or a
/// device. Throws Error for unknown devices (listing the valid values), impossible device /
/// precision pairs, and int16 without a quantized network made for `network`.
FPGACNN_API std::unique_ptr<Backend> make_backend(const Network& network, const BackendOptions& options);

/// Float or Int16 for a device / precision pair (Auto: Int16 on accelerators, Float on the CPU);
/// throws Error on impossible pairs (accelerators compute in int16 only).
FPGACNN_API Precision resolve_precision(const std::string& device, Precision precision);

/// Makes one Backend for the Detector (DetectorOptions::backend_factory).
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

/// Everything a Detector is configured with: the backend, the decode thresholds, the pipeline's sizes
/// and the golden-twin check. Read once by the constructor (later changes to a copy have no effect).
struct FPGACNN_API DetectorOptions {
    /// Where and in what arithmetic the network runs (make_backend).
    BackendOptions backend;
    float thresh = 0.5f;       ///< darknet detector test defaults
    float hier_thresh = 0.5f;  ///< only meaningful for softmax trees; kept for CLI parity
    float nms = 0.45f;         ///< IoU above which the less probable of two same-class boxes is dropped
    /// submit(): frames admitted at once; submit() blocks while this many are unfinished.
    int max_in_flight = 4;
    /// submit(): device-stage workers, each owning its own Backend (one per compute unit or device).
    /// On the CPU backends one is right: they already use every core for one frame.
    int device_workers = 1;
    /// When set, every Backend is made by this instead of make_backend() (custom devices, tests).
    BackendFactory backend_factory;
    /// Golden-twin checking of device results (fpgacnn/golden_twin.hpp); needs backend.quantized.
    /// Has no effect on the CPU backends.
    GoldenTwinOptions verify;
};

/// One frame's detections (Detector::detect, or the future of Detector::submit) and where its time went.
struct FPGACNN_API DetectionResult {
    int image_w = 0;  ///< the original image's width, pixels (the detections' coordinate space)
    int image_h = 0;  ///< the original image's height, pixels
    /// detect(): letterbox + forward + decode + NMS. submit(): from submit() to the result being
    /// ready, so it includes the time the frame waited behind others.
    double milliseconds = 0;
    double pre_ms = 0;     ///< letterbox (the int16 backends quantize inside run(), i.e. in device_ms)
    double device_ms = 0;  ///< Backend::run
    double post_ms = 0;    ///< region decode + NMS
    /// Above DetectorOptions::thresh after NMS, in pixels of the original image, in darknet's order.
    std::vector<Detection> detections;
};

/// One frame's decode thresholds (a server's request parameters); an unset one is the options'.
struct FPGACNN_API FrameThresholds {
    std::optional<float> thresh;  ///< replaces DetectorOptions::thresh when set
    std::optional<float> nms;     ///< replaces DetectorOptions::nms when set
};

namespace pipeline_detail {
class FramePipeline;
class GoldenTwinState;
}  // namespace pipeline_detail

/// Detects objects in images, one at a time (detect) or pipelined (submit).
///
/// submit() threading: the pipeline starts on the first submit(). Frames get identical results to
/// detect() (the same letterbox, backend and decode code). submit() may be called from several
/// threads; results are completed in submission order. detect() waits for the frames in flight to
/// finish, then runs on the caller's thread (submit() calls wait meanwhile). The destructor
/// finishes every submitted frame before it returns, so no future is left without a value.
class FPGACNN_API Detector {
public:
    /// The network must have weights loaded and batch-norm folded, except for int16 with
    /// options.backend.quantized: then its shapes are enough (release_float_parameters).
    /// `class_names` label the detections (Detection::class_name; a class without a name: "class_<id>").
    /// Builds the backend now (make_backend, or options.backend_factory): throws Error when the network
    /// has no weights and no quantized model, is not a detector (no [region] or [yolo] output), when
    /// max_in_flight or device_workers is below 1, or whatever make_backend throws (unknown device,
    /// a device that cannot be opened: DeviceError).
    Detector(Network network, std::vector<std::string> class_names, DetectorOptions options);
    ~Detector();
    Detector(const Detector&) = delete;
    Detector& operator=(const Detector&) = delete;

    /// Detects objects in `image` (float RGB, 0..1, any size: letterboxed to the network input) on the
    /// caller's thread and returns when done. Throws what the backend throws (DeviceError for a failed
    /// device unless BackendOptions::cpu_fallback).
    DetectionResult detect(const Image& image);
    /// detect() of 8-bit RGB pixels: the detections of detect(image_from_rgb(...)), letterboxed
    /// without the full-size float image (letterbox_rgb).
    DetectionResult detect(const RgbPixels& pixels);
    /// detect() of a shared frame (the input submit() takes). Throws Error for an empty frame.
    DetectionResult detect(const FrameInput& frame);

    /// Queues one frame and returns at once unless options().max_in_flight frames are unfinished,
    /// in which case it blocks until the oldest completes (back-pressure). A frame's failure (a bad
    /// image, a device error) is thrown by its future's get(); later frames are unaffected.
    /// `thresholds` replace the options' thresh / nms for this frame only.
    std::future<DetectionResult> submit(Image image, FrameThresholds thresholds = {});
    /// As above for a shared frame (fpgacnn/frame_input.hpp): a shared image or RGB pixels, or pixels
    /// in a buffer the caller owns. Nothing is copied: a caller that submits the same frame many
    /// times (a benchmark, a still) or a server handing over a request's bytes pays no copy of the
    /// pixels; RGB pixels are letterboxed without the full-size float image (letterbox_rgb), with
    /// the detections of submitting image_from_rgb of them. The pipeline holds the frame until its
    /// pre-processing is done. Throws fpgacnn::Error for an empty frame.
    std::future<DetectionResult> submit(FrameInput frame, FrameThresholds thresholds = {});
    /// Blocks until every submitted frame's future is ready.
    void flush();
    /// Frames submitted and not yet completed.
    int frames_in_flight() const;

    /// The [region] layer's activated output of the last detect(), darknet's l.output.
    const std::vector<float>& region_output() const { return region_output_; }
    /// region_output() handed over instead of copied, for a caller that keeps it (the Python
    /// package's forward() returns it as a numpy array); region_output() is empty until the next
    /// detect(). Call it on the thread that called detect(), before any other detect().
    std::vector<float> take_region_output() {
        std::lock_guard<std::mutex> lock(calls_);
        return std::move(region_output_);
    }
    /// Layer i's output of the last detect() (needs keep_layer_outputs on a device).
    std::vector<float> layer_output(int i) const { return backend_->layer_output(i); }
    /// Per-layer times of the last detect().
    std::vector<LayerTiming> layer_times() const { return backend_->layer_times(); }
    /// The accelerator detect() runs on, or null on the CPU.
    const Device* device() const { return backend_->device(); }

    /// Golden-twin counters (thread-safe; frames verified so far, mismatches, fallback).
    VerificationStats verification() const;

    /// The network as given to the constructor.
    const Network& network() const { return network_; }
    /// The options as given to the constructor.
    const DetectorOptions& options() const { return options_; }
    /// The backend's name, e.g. "cpu (int16, avx2)" or a device's Device::name().
    std::string device_name() const { return backend_->name(); }

private:
    /// detect() after `letterbox` made the network input of an image_w x image_h image.
    DetectionResult detect_letterboxed(int image_w, int image_h, const std::function<Image()>& letterbox);
    std::unique_ptr<Backend> new_backend() const;
    /// `backend` wrapped in the golden twin when options_.verify asks for it and it runs on a device.
    std::unique_ptr<Backend> with_golden_twin(std::unique_ptr<Backend> backend) const;

    Network network_;
    std::vector<std::string> class_names_;
    DetectorOptions options_;
    std::shared_ptr<pipeline_detail::GoldenTwinState> twin_state_;  ///< shared by every worker's twin
    std::unique_ptr<Backend> backend_;
    std::vector<float> region_output_;
    mutable std::mutex calls_;  ///< detect() against submit(): they share backend_
    std::unique_ptr<pipeline_detail::FramePipeline> pipeline_;
    /// pipeline_ for frames_in_flight(), which must not wait for calls_ (a blocked submit holds it).
    std::atomic<const pipeline_detail::FramePipeline*> running_pipeline_{nullptr};
    std::vector<std::unique_ptr<Backend>> extra_backends_;  ///< device workers 2..N of the pipeline
};

}  // namespace fpgacnn

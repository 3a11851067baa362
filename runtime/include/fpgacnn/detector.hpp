// The whole detection pipeline for one image: letterbox -> backend forward pass -> region decode
// -> NMS -> detections in pixels of the original image. detect() runs the three steps on the
// caller's thread; submit() runs them as a pipeline (pre-processing, device, post-processing on
// threads of their own) so consecutive frames overlap.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"
#include "fpgacnn/quantized.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

class Backend;
class Device;

/// Makes one Backend for the Detector (DetectorOptions::backend_factory).
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

struct DetectorOptions {
    std::string device = "auto";     // auto | cpu | emu | emu:lenient | uio:NAME (later: xrt:N)
    std::string precision = "auto";  // auto (int16 on accelerators, float on cpu) | float | int16
    /// int16 only: the network's exponents and int16 parameters (load_quantized_network or calibrate).
    std::shared_ptr<const QuantizedNetwork> quantized;
    float thresh = 0.5f;       // darknet detector test defaults
    float hier_thresh = 0.5f;  // only meaningful for softmax trees; kept for CLI parity
    float nms = 0.45f;
    /// Keep every layer's output for layer_output() (on a device: one extra sync per layer).
    bool keep_layer_outputs = false;
    /// On an accelerator: when the device fails (cannot open, a layer times out, it vanishes), log
    /// the error and run this frame and all later ones on the CPU int16 backend (the same bits).
    bool cpu_fallback = false;
    /// submit(): frames admitted at once; submit() blocks while this many are unfinished.
    int max_in_flight = 4;
    /// submit(): device-stage workers, each owning its own Backend (one per compute unit or device).
    /// On the CPU backends one is right: they already use every core for one frame.
    int device_workers = 1;
    /// When set, every Backend is made by this instead of make_backend() (custom devices, tests).
    BackendFactory backend_factory;
};

struct DetectionResult {
    int image_w = 0;
    int image_h = 0;
    /// detect(): letterbox + forward + decode + NMS. submit(): from submit() to the result being
    /// ready, so it includes the time the frame waited behind others.
    double milliseconds = 0;
    double pre_ms = 0;     // letterbox (the int16 backends quantize inside run(), i.e. in device_ms)
    double device_ms = 0;  // Backend::run
    double post_ms = 0;    // region decode + NMS
    std::vector<Detection> detections;
};

/// One layer's measured time in the last Backend::run.
struct LayerTiming {
    int layer = -1;
    double milliseconds = 0;  // device time on accelerators (start to done), wall clock on the CPU
    bool on_device = false;   // measured by the device; false: host code (CPU backends, route/region)
    /// Bytes the device read and wrote for the layer; 0 when the backend does not count traffic.
    std::uint64_t bytes_moved = 0;
};

/// Executes a network's layers on some device; the Detector owns one.
class Backend {
public:
    virtual ~Backend() = default;
    /// Runs one frame on a letterboxed CHW float input; returns the activated region buffer.
    virtual const std::vector<float>& run(const float* input) = 0;
    /// Output of layer i from the last run, float32 in darknet's layout.
    virtual std::vector<float> layer_output(int i) const = 0;
    /// Human-readable name, e.g. "cpu (float, OpenBLAS)".
    virtual std::string name() const = 0;
    /// Per-layer times of the last run (one steady_clock read per layer on the CPU backends);
    /// empty when the backend does not measure them.
    virtual std::vector<LayerTiming> layer_times() const { return {}; }
    /// The accelerator this backend runs on (for telemetry), or null for CPU backends.
    virtual const Device* device() const { return nullptr; }
};

/// Picks the backend for a --device value; throws Error listing valid values when unknown.
std::unique_ptr<Backend> make_backend(const Network& network, const std::string& device);
/// Same with a precision: "float", or "int16" running `quantized` (which must be made for `network`).
std::unique_ptr<Backend> make_backend(const Network& network, const std::string& device,
                                      const std::string& precision,
                                      std::shared_ptr<const QuantizedNetwork> quantized,
                                      bool keep_layer_outputs = false, bool cpu_fallback = false);

/// The device a --device value runs on ("auto" -> the best present; today always "cpu").
std::string resolve_device(const std::string& device);
/// "float" or "int16" for a --device / --precision pair; throws Error on impossible pairs
/// (accelerators compute in int16 only).
std::string resolve_precision(const std::string& device, const std::string& precision);

namespace pipeline_detail {
class FramePipeline;
}

/// Detects objects in images, one at a time (detect) or pipelined (submit).
///
/// submit() threading: the pipeline starts on the first submit(). Frames get identical results to
/// detect() (the same letterbox, backend and decode code). submit() may be called from several
/// threads; results are completed in submission order. detect() waits for the frames in flight to
/// finish, then runs on the caller's thread (submit() calls wait meanwhile). The destructor
/// finishes every submitted frame before it returns, so no future is left without a value.
class Detector {
public:
    /// The network must have weights loaded and batch-norm folded.
    Detector(Network network, std::vector<std::string> class_names, DetectorOptions options);
    ~Detector();
    Detector(const Detector&) = delete;
    Detector& operator=(const Detector&) = delete;

    DetectionResult detect(const Image& image);

    /// Queues one frame and returns at once unless options().max_in_flight frames are unfinished,
    /// in which case it blocks until the oldest completes (back-pressure). A frame's failure (a bad
    /// image, a device error) is thrown by its future's get(); later frames are unaffected.
    std::future<DetectionResult> submit(Image image);
    /// Blocks until every submitted frame's future is ready.
    void flush();
    /// Frames submitted and not yet completed.
    int frames_in_flight() const;

    /// The [region] layer's activated output of the last detect(), darknet's l.output.
    const std::vector<float>& region_output() const { return region_output_; }
    /// Layer i's output of the last detect() (needs keep_layer_outputs on a device).
    std::vector<float> layer_output(int i) const { return backend_->layer_output(i); }
    /// Per-layer times of the last detect().
    std::vector<LayerTiming> layer_times() const { return backend_->layer_times(); }
    /// The accelerator detect() runs on, or null on the CPU.
    const Device* device() const { return backend_->device(); }

    const Network& network() const { return network_; }
    const DetectorOptions& options() const { return options_; }
    std::string device_name() const { return backend_->name(); }

private:
    std::unique_ptr<Backend> new_backend() const;

    Network network_;
    std::vector<std::string> class_names_;
    DetectorOptions options_;
    std::unique_ptr<Backend> backend_;
    std::vector<float> region_output_;
    mutable std::mutex calls_;  // detect() against submit(): they share backend_
    std::unique_ptr<pipeline_detail::FramePipeline> pipeline_;
    /// pipeline_ for frames_in_flight(), which must not wait for calls_ (a blocked submit holds it).
    std::atomic<const pipeline_detail::FramePipeline*> running_pipeline_{nullptr};
    std::vector<std::unique_ptr<Backend>> extra_backends_;  // device workers 2..N of the pipeline
};

}  // namespace fpgacnn

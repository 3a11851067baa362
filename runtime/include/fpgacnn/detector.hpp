// The whole detection pipeline for one image: letterbox -> backend forward pass -> region decode
// -> NMS -> detections in pixels of the original image.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"
#include "fpgacnn/quantized.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

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
};

struct DetectionResult {
    int image_w = 0;
    int image_h = 0;
    double milliseconds = 0;  // letterbox + forward + decode + NMS
    std::vector<Detection> detections;
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

class Detector {
public:
    /// The network must have weights loaded and batch-norm folded.
    Detector(Network network, std::vector<std::string> class_names, DetectorOptions options);
    ~Detector();
    Detector(const Detector&) = delete;
    Detector& operator=(const Detector&) = delete;

    DetectionResult detect(const Image& image);

    /// The [region] layer's activated output of the last detect(), darknet's l.output.
    const std::vector<float>& region_output() const { return region_output_; }
    std::vector<float> layer_output(int i) const { return backend_->layer_output(i); }

    const Network& network() const { return network_; }
    const DetectorOptions& options() const { return options_; }
    std::string device_name() const { return backend_->name(); }

private:
    Network network_;
    std::vector<std::string> class_names_;
    DetectorOptions options_;
    std::unique_ptr<Backend> backend_;
    std::vector<float> region_output_;
};

}  // namespace fpgacnn

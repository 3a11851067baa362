// The whole detection pipeline for one image: letterbox -> backend forward pass -> region decode
// -> NMS -> detections in pixels of the original image.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

struct DetectorOptions {
    std::string device = "auto";  // auto | cpu (later: emu, xrt:N, uio:NAME)
    float thresh = 0.5f;          // darknet detector test defaults
    float hier_thresh = 0.5f;     // only meaningful for softmax trees; kept for CLI parity
    float nms = 0.45f;
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

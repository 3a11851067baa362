// The float reference path: executes the network exactly like darknet's CPU forward pass
// (im2col + BLAS sgemm for convolutions). It is the accuracy reference for the int16 paths.
#pragma once

#include <memory>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn {

/// Runs a Network in float on the CPU, layer by layer, keeping every layer's output. One run() at a
/// time: an engine is used by one thread (several engines may share a Network).
class FPGACNN_API FloatEngine {
public:
    /// The network must have weights loaded and batch-norm folded. It is referenced, not copied: it
    /// must outlive the engine. Throws Error when it has no layers or weights, or when its weights,
    /// outputs and workspace would exceed the host memory budget (host_memory_budget()).
    explicit FloatEngine(const Network& network);
    ~FloatEngine();
    FloatEngine(const FloatEngine&) = delete;
    FloatEngine& operator=(const FloatEngine&) = delete;

    /// Runs one frame. `input` holds network.input.size() floats (CHW, RGB, 0..1).
    /// Returns the last layer's output (for YOLOv2 the [region] buffer after its activations).
    const std::vector<float>& run(const float* input);

    /// Output of layer i from the last run(), darknet layout.
    const std::vector<float>& layer_output(int i) const;
    /// Wall-clock milliseconds of every layer in the last run().
    const std::vector<double>& layer_milliseconds() const { return layer_ms_; }

    /// The network given to the constructor.
    const Network& network() const { return network_; }

private:
    const Network& network_;
    std::vector<std::vector<float>> outputs_;
    std::vector<float> workspace_;  ///< im2col scratch, sized for the largest conv
    std::vector<double> layer_ms_;
};

}  // namespace fpgacnn

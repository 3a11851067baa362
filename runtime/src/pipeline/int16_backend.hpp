// The CPU int16 path behind the Backend interface: the letterboxed float input quantized at the
// network's input exponent, Int16Engine, and the region layer's input dequantized and activated in
// float on the host (as the FPGA flow does).
#pragma once

#include <memory>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/int16_engine.hpp"

namespace fpgacnn {

class ThreadPool;

class Int16Backend final : public Backend {
public:
    /// threads = 0: all cores. keep_layer_outputs: layer_output() for every layer (Int16Engine).
    explicit Int16Backend(std::shared_ptr<const QuantizedNetwork> quantized, Int16Isa isa = best_int16_isa(),
                          int threads = 0, bool keep_layer_outputs = true);
    ~Int16Backend() override;
    Int16Backend(const Int16Backend&) = delete;
    Int16Backend& operator=(const Int16Backend&) = delete;
    const std::vector<float>& run(const float* input) override;
    /// Dequantized output of layer i; for the region / yolo layers their activated output.
    std::vector<float> layer_output(int i) const override;
    std::string name() const override;
    std::vector<LayerTiming> layer_times() const override;
    /// Layer i's int16 output of the last run, as the engine computed it (the golden twin's reference).
    const std::vector<int16_t>& raw_layer_output(int i) const { return engine_.layer_output(i); }

private:
    std::shared_ptr<const QuantizedNetwork> quantized_;
    Int16Engine engine_;
    std::vector<int> output_layers_;  // Network::output_layer_indices()
    std::vector<int16_t> input_;
    std::vector<float> detection_output_;   // the output layers' activated values, one after the other
    std::unique_ptr<ThreadPool> own_pool_;  // only for an explicit thread count
    ThreadPool* pool_ = nullptr;            // the input conversion and the output layers' activation
};

}  // namespace fpgacnn

// --fallback cpu: a device backend that, after the device fails (a DeviceError: cannot open, a layer
// times out, the device vanishes, its kernel build cannot run the network), logs the error and runs
// that frame and every later one on the CPU int16 backend, which computes the same bits
// (docs/arithmetic.md). Any other Error (the model, the input) is the caller's: the CPU would hit it
// again, so it is rethrown as is.
#pragma once

#include <functional>
#include <memory>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

class FallbackBackend final : public Backend {
public:
    FallbackBackend(const std::function<std::unique_ptr<Backend>()>& open_device,
                    std::shared_ptr<const QuantizedNetwork> quantized, bool keep_layer_outputs);
    const std::vector<float>& run(const float* input) override;
    const std::vector<float>& run_capturing(const float* input,
                                            std::vector<std::vector<int16_t>>& layers) override;
    std::vector<float> layer_output(int i) const override;
    std::string name() const override;
    std::vector<LayerTiming> layer_times() const override;
    const Device* device() const override;

private:
    void switch_to_cpu(const std::string& reason);
    /// on_device(*device_) while the device works; after a DeviceError (now or earlier) the CPU.
    template <typename OnDevice>
    const std::vector<float>& run_on_device_or_cpu(const float* input, OnDevice on_device);

    std::shared_ptr<const QuantizedNetwork> quantized_;
    bool keep_layer_outputs_;
    std::unique_ptr<Backend> device_;  // null once it failed
    std::unique_ptr<Backend> cpu_;     // made on the first failure
    std::string failed_device_;
};

}  // namespace fpgacnn

#include "pipeline/fallback_backend.hpp"

#include <spdlog/spdlog.h>

#include "fpgacnn/error.hpp"
#include "pipeline/int16_backend.hpp"

namespace fpgacnn {

FallbackBackend::FallbackBackend(const std::function<std::unique_ptr<Backend>()>& open_device,
                                 std::shared_ptr<const QuantizedNetwork> quantized, bool keep_layer_outputs)
    : quantized_(std::move(quantized)), keep_layer_outputs_(keep_layer_outputs) {
    try {
        device_ = open_device();
    } catch (const DeviceError& e) {  // a model error (plain Error) would fail on the CPU too
        switch_to_cpu(e.what());
    }
}

void FallbackBackend::switch_to_cpu(const std::string& reason) {
    if (device_) failed_device_ = device_->name();
    spdlog::error("{}", reason);
    spdlog::warn("falling back to the CPU int16 backend (bit-identical results) for this and later frames");
    device_.reset();
    cpu_ = std::make_unique<Int16Backend>(quantized_, best_int16_isa(), 0, keep_layer_outputs_);
}

template <typename OnDevice>
const std::vector<float>& FallbackBackend::run_on_device_or_cpu(const float* input, OnDevice on_device) {
    if (device_) {
        try {
            return on_device(*device_);
        } catch (const DeviceError& e) {
            switch_to_cpu(e.what());
        }
    }
    return cpu_->run(input);
}

const std::vector<float>& FallbackBackend::run(const float* input) {
    return run_on_device_or_cpu(
        input, [&](Backend& device) -> const std::vector<float>& { return device.run(input); });
}

const std::vector<float>& FallbackBackend::run_capturing(const float* input,
                                                         std::vector<std::vector<int16_t>>& layers) {
    layers.clear();  // stays empty on the CPU: it is the reference itself, nothing to check
    return run_on_device_or_cpu(input, [&](Backend& device) -> const std::vector<float>& {
        return device.run_capturing(input, layers);
    });
}

std::vector<float> FallbackBackend::layer_output(int i) const {
    return device_ ? device_->layer_output(i) : cpu_->layer_output(i);
}

std::vector<LayerTiming> FallbackBackend::layer_times() const {
    return device_ ? device_->layer_times() : cpu_->layer_times();
}

const Device* FallbackBackend::device() const { return device_ ? device_->device() : nullptr; }

std::string FallbackBackend::name() const {
    if (device_) return device_->name() + ", falls back to the CPU";
    return cpu_->name() + " (fallback" + (failed_device_.empty() ? "" : " from " + failed_device_) + ")";
}

}  // namespace fpgacnn

// The golden twin around a device backend (DetectorOptions::verify). On a due frame (one in N) the
// CPU int16 backend computes the same frame on a thread of its own while the device computes it, so
// the device stage waits only for the part of the CPU's time that exceeds the device's; then every
// layer's device output (one extra sync per layer, this frame only) is compared with the CPU's bit
// for bit. Other frames go straight to the device: nothing is captured or computed twice.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/golden_twin.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/quantized.hpp"
#include "pipeline/int16_backend.hpp"

namespace fpgacnn::pipeline_detail {

/// What every device worker's twin shares: which frames are due, the counters and the fallback.
class GoldenTwinState {
public:
    explicit GoldenTwinState(GoldenTwinOptions options);
    const GoldenTwinOptions& options() const { return options_; }
    /// Numbers one frame; true (and its number) when it is due for verification.
    bool next_frame_due(std::uint64_t& frame);
    void record_match();
    /// Logs and counts a mismatch; with OnMismatch::Fallback, switches every twin to the CPU (saying so
    /// once).
    void record_mismatch(const TwinMismatch& mismatch, const std::string& device_name);
    bool fell_back() const { return fell_back_.load(); }
    VerificationStats stats() const;

private:
    const GoldenTwinOptions options_;
    std::atomic<std::uint64_t> frames_{0};
    std::atomic<bool> fell_back_{false};
    mutable std::mutex mutex_;
    VerificationStats stats_;  // under mutex_
};

class GoldenTwinBackend final : public Backend {
public:
    /// `device` must run on a Device (device() not null); `quantized` is the network it runs.
    GoldenTwinBackend(std::unique_ptr<Backend> device, std::shared_ptr<const QuantizedNetwork> quantized,
                      std::shared_ptr<GoldenTwinState> state);
    const std::vector<float>& run(const float* input) override;
    std::vector<float> layer_output(int i) const override;
    std::string name() const override;
    std::vector<LayerTiming> layer_times() const override;
    const Device* device() const override;

private:
    const std::vector<float>& verify(const float* input, std::uint64_t frame);
    bool on_cpu() const { return state_->fell_back() || device_->device() == nullptr; }

    std::unique_ptr<Backend> device_;
    std::shared_ptr<GoldenTwinState> state_;
    NetworkPlan plan_;  // the device's tiles, for locating a mismatch
    Int16Backend twin_;
    bool last_run_on_twin_ = false;  // layer_output / layer_times of the last run come from the twin
};

}  // namespace fpgacnn::pipeline_detail

#include "pipeline/golden_twin_backend.hpp"

#include <future>

#include <spdlog/spdlog.h>

#include "fpgacnn/device.hpp"
#include "fpgacnn/error.hpp"
#include "pipeline/golden_twin_compare.hpp"

namespace fpgacnn::pipeline_detail {

GoldenTwinState::GoldenTwinState(GoldenTwinOptions options) : options_(options) {
    if (options_.every < 0)
        throw Error("the golden twin's interval (--verify-every) must be 0 (off) or more");
    stats_.every = options_.every;
}

bool GoldenTwinState::next_frame_due(std::uint64_t& frame) {
    frame = frames_++;
    return options_.every > 0 && frame % static_cast<std::uint64_t>(options_.every) == 0;
}

void GoldenTwinState::record_match() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.frames_verified;
}

void GoldenTwinState::record_mismatch(const TwinMismatch& mismatch, const std::string& device_name) {
    spdlog::error("golden twin: {} on {}", mismatch.text(), device_name);
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.frames_verified;
    ++stats_.mismatches;
    if (!stats_.first_mismatch) stats_.first_mismatch = mismatch;
    stats_.last_mismatch = mismatch;
    if (options_.on_mismatch != OnMismatch::Fallback || stats_.fell_back) return;
    stats_.fell_back = true;
    fell_back_ = true;
    spdlog::warn(
        "golden twin: switching to the CPU int16 backend for this frame and the rest of the run "
        "(--on-mismatch fallback); {} gave wrong results",
        device_name);
}

VerificationStats GoldenTwinState::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
}

namespace {

NetworkPlan device_plan(const Backend& device, const QuantizedNetwork& quantized) {
    if (device.device() == nullptr) throw Error("the golden twin needs a backend that runs on a device");
    PlanOptions options;
    options.maxima = device.device()->maxima();
    plan_widths_of(quantized, options);
    return plan_network(quantized.network, options);
}

}  // namespace

GoldenTwinBackend::GoldenTwinBackend(std::unique_ptr<Backend> device,
                                     std::shared_ptr<const QuantizedNetwork> quantized,
                                     std::shared_ptr<GoldenTwinState> state)
    : device_(std::move(device)),
      state_(std::move(state)),
      plan_(device_plan(*device_, *quantized)),
      twin_(std::move(quantized)) {}

const std::vector<float>& GoldenTwinBackend::run(const float* input) {
    std::uint64_t frame = 0;
    const bool due = state_->next_frame_due(frame);
    last_run_on_twin_ = on_cpu();
    if (last_run_on_twin_) return twin_.run(input);
    return due ? verify(input, frame) : device_->run(input);
}

const std::vector<float>& GoldenTwinBackend::verify(const float* input, std::uint64_t frame) {
    // The twin computes the frame while the device does; the input outlives both.
    std::future<const std::vector<float>*> twin =
        std::async(std::launch::async, [this, input] { return &twin_.run(input); });
    std::vector<std::vector<int16_t>> device_layers;
    const std::vector<float>* device_output = nullptr;
    try {
        device_output = &device_->run_capturing(input, device_layers);
    } catch (...) {
        twin.wait();
        throw;
    }
    const std::vector<float>* twin_output = twin.get();
    if (device_layers.empty()) return *device_output;  // the device failed over to the CPU (--fallback cpu)
    std::optional<TwinMismatch> mismatch =
        first_divergence(plan_, device_layers,
                         [this](int i) -> const std::vector<int16_t>& { return twin_.raw_layer_output(i); });
    if (!mismatch) {
        state_->record_match();
        return *device_output;
    }
    mismatch->frame = frame;
    state_->record_mismatch(*mismatch, device_->name());
    if (!state_->fell_back()) return *device_output;
    last_run_on_twin_ = true;  // this frame's results are the CPU's already
    return *twin_output;
}

std::vector<float> GoldenTwinBackend::layer_output(int i) const {
    return last_run_on_twin_ ? twin_.layer_output(i) : device_->layer_output(i);
}

std::string GoldenTwinBackend::name() const {
    if (on_cpu()) return twin_.name() + " (golden twin fallback from " + device_->name() + ")";
    return device_->name() + ", golden twin every " + std::to_string(state_->options().every) + " frame(s)";
}

std::vector<LayerTiming> GoldenTwinBackend::layer_times() const {
    return last_run_on_twin_ ? twin_.layer_times() : device_->layer_times();
}

const Device* GoldenTwinBackend::device() const { return on_cpu() ? nullptr : device_->device(); }

}  // namespace fpgacnn::pipeline_detail

// DeviceBackend: a Device behind the detection pipeline's Backend interface.
#include <memory>
#include <string>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

namespace {

class DeviceBackend final : public Backend {
public:
    DeviceBackend(std::shared_ptr<const QuantizedNetwork> network, std::unique_ptr<Device> device,
                  bool capture)
        : network_(std::move(network)),
          device_(std::move(device)),
          queue_(*device_, network_, queue_options(capture)),
          region_index_(network_->network.region_layer_index()),
          input_(network_->network.input.size()),
          region_output_(network_->network.layers[static_cast<std::size_t>(region_index_)].output.size()) {
        if (region_index_ != static_cast<int>(network_->network.layers.size()) - 1) {
            throw DeviceError(network_->network.cfg_path +
                              ": the [region] layer must be the last layer to run on " + device_->name());
        }
    }

    const std::vector<float>& run(const float* input) override { return run_frame(input, false); }

    const std::vector<float>& run_capturing(const float* input,
                                            std::vector<std::vector<int16_t>>& layers) override {
        const std::vector<float>& output = run_frame(input, true);
        layers = queue_.layer_outputs();
        return output;
    }

    std::vector<float> layer_output(int i) const override {
        if (i == region_index_) return region_output_;
        const std::vector<int16_t>& raw = queue_.layer_output(i);
        std::vector<float> out(raw.size());
        dequantize_tensor(raw.data(), raw.size(), network_->layers[static_cast<std::size_t>(i)].output_q,
                          out.data());
        return out;
    }

    std::string name() const override { return device_->name() + " (int16)"; }

    // Device layers as the device timed them; routes and the region layer cost no command.
    std::vector<LayerTiming> layer_times() const override {
        std::vector<LayerTiming> times(network_->network.layers.size());
        for (std::size_t i = 0; i < times.size(); ++i) times[i].layer = static_cast<int>(i);
        for (const CommandStats& stats : queue_.last_stats()) {
            LayerTiming& timing = times.at(static_cast<std::size_t>(stats.layer));
            timing.on_device = true;
            timing.milliseconds += stats.milliseconds;
            timing.bytes_moved += stats.fm_read_bytes + stats.fm_write_bytes + stats.param_read_bytes;
            timing.cycles += stats.cycles;
        }
        return times;
    }

    const Device* device() const override { return device_.get(); }

private:
    const std::vector<float>& run_frame(const float* input, bool capture_layers) {
        quantize_tensor(input, input_.size(), network_->input_q, input_.data());
        const std::vector<int16_t>& raw = queue_.run(input_.data(), capture_layers);
        const Layer& region = network_->network.layers[static_cast<std::size_t>(region_index_)];
        dequantize_tensor(raw.data(), raw.size(),
                          network_->layers[static_cast<std::size_t>(region_index_)].output_q,
                          region_output_.data());
        region_activate(region.region(), region.output, region_output_.data());
        return region_output_;
    }

    static QueueOptions queue_options(bool capture) {
        QueueOptions options;
        options.capture_layers = capture;
        return options;
    }

    std::shared_ptr<const QuantizedNetwork> network_;
    std::unique_ptr<Device> device_;
    DeviceQueue queue_;
    int region_index_;
    std::vector<int16_t> input_;
    std::vector<float> region_output_;
};

}  // namespace

std::unique_ptr<Backend> make_device_backend(std::shared_ptr<const QuantizedNetwork> network,
                                             const std::string& device_spec, bool capture_layers) {
    if (!network)
        throw Error("device '" + device_spec + "' needs a quantized network (calibrate or load one first)");
    return std::make_unique<DeviceBackend>(std::move(network), open_device(device_spec), capture_layers);
}

}  // namespace fpgacnn

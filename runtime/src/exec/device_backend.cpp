// DeviceBackend: a Device behind the detection pipeline's Backend interface.
#include <memory>
#include <string>

#include "core/detection_output.hpp"
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
          output_layers_(network_->network.output_layer_indices()),
          input_(network_->network.input.size()),
          detection_output_(network_->network.detection_output_size()) {
        const std::vector<Layer>& layers = network_->network.layers;
        const bool yolo = layers[static_cast<std::size_t>(output_layers_.front())].type == LayerType::Yolo;
        // The queue returns the last layer's output: a [region] or [softmax] one is, or only identities
        // ([cost], [dropout]: the same arena values) follow it.
        for (std::size_t i = static_cast<std::size_t>(output_layers_.front()) + 1; !yolo && i < layers.size();
             ++i) {
            if (layers[i].type == LayerType::Cost || layers[i].type == LayerType::Dropout) continue;
            throw DeviceError(network_->network.cfg_path + ": the [" +
                              layer_type_name(layers[static_cast<std::size_t>(output_layers_.front())].type) +
                              "] output layer must be the last layer to run on " + device_->name());
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
        if (auto values =
                core::output_layer_values(network_->network, output_layers_, detection_output_, i)) {
            return *values;
        }
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
        // The queue returns the output layers' int16 inputs one after the other ([region], or each [yolo]
        // head); each is dequantized at its own exponent and activated on the host.
        const std::vector<int16_t>& raw = queue_.run(input_.data(), capture_layers);
        if (raw.size() != detection_output_.size()) {
            throw DeviceError(device_->name() + ": the device returned " + std::to_string(raw.size()) +
                              " output values, the network's output layers have " +
                              std::to_string(detection_output_.size()));
        }
        std::size_t offset = 0;
        for (const int i : output_layers_) {
            const Layer& layer = network_->network.layers[static_cast<std::size_t>(i)];
            float* out = detection_output_.data() + offset;
            dequantize_tensor(raw.data() + offset, layer.output.size(),
                              network_->layers[static_cast<std::size_t>(i)].output_q, out);
            output_layer_activate(layer, out);
            offset += layer.output.size();
        }
        return detection_output_;
    }

    static QueueOptions queue_options(bool capture) {
        QueueOptions options;
        options.capture_layers = capture;
        return options;
    }

    std::shared_ptr<const QuantizedNetwork> network_;
    std::unique_ptr<Device> device_;
    DeviceQueue queue_;
    std::vector<int> output_layers_;  // Network::output_layer_indices()
    std::vector<int16_t> input_;
    std::vector<float> detection_output_;  // the output layers' activated values, one after the other
};

}  // namespace

std::unique_ptr<Backend> make_device_backend(std::shared_ptr<const QuantizedNetwork> network,
                                             const std::string& device_spec, bool capture_layers) {
    if (!network)
        throw Error("device '" + device_spec + "' needs a quantized network (calibrate or load one first)");
    return std::make_unique<DeviceBackend>(std::move(network), open_device(device_spec), capture_layers);
}

}  // namespace fpgacnn

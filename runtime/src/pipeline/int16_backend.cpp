#include "pipeline/int16_backend.hpp"

#include "core/detection_output.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"
#include "pipeline/layer_times.hpp"

namespace fpgacnn {

namespace {

const QuantizedNetwork& require(const std::shared_ptr<const QuantizedNetwork>& quantized) {
    if (!quantized) throw Error("the int16 backend needs a quantized network (calibrate or load one first)");
    return *quantized;
}

}  // namespace

Int16Backend::Int16Backend(std::shared_ptr<const QuantizedNetwork> quantized, Int16Isa isa, int threads,
                           bool keep_layer_outputs)
    : quantized_(std::move(quantized)),
      engine_(require(quantized_), isa, threads, keep_layer_outputs),
      output_layers_(quantized_->network.output_layer_indices()),
      input_(quantized_->network.input.size()),
      detection_output_(quantized_->network.detection_output_size()) {}

const std::vector<float>& Int16Backend::run(const float* input) {
    quantize_tensor(input, input_.size(), quantized_->input_q, input_.data());
    engine_.run(input_.data());
    // Every output layer ([region], or each [yolo] head) dequantized and activated on the host.
    float* out = detection_output_.data();
    for (const int i : output_layers_) {
        const Layer& layer = quantized_->network.layers[static_cast<std::size_t>(i)];
        const std::vector<int16_t>& raw = engine_.layer_output(i);
        dequantize_tensor(raw.data(), layer.output.size(),
                          quantized_->layers[static_cast<std::size_t>(i)].output_q, out);
        output_layer_activate(layer, out);
        out += layer.output.size();
    }
    return detection_output_;
}

std::vector<float> Int16Backend::layer_output(int i) const {
    if (auto values = core::output_layer_values(quantized_->network, output_layers_, detection_output_, i)) {
        return *values;
    }
    const std::vector<int16_t>& raw = engine_.layer_output(i);
    std::vector<float> out(quantized_->network.layers[static_cast<std::size_t>(i)].output.size());
    dequantize_tensor(raw.data(), out.size(), quantized_->layers[i].output_q, out.data());
    return out;
}

std::vector<LayerTiming> Int16Backend::layer_times() const {
    return host_layer_times(engine_.layer_milliseconds());
}

std::string Int16Backend::name() const { return std::string("cpu (int16, ") + isa_name(engine_.isa()) + ")"; }

}  // namespace fpgacnn

#include "pipeline/int16_backend.hpp"

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
      region_index_(quantized_->network.region_layer_index()),
      input_(quantized_->network.input.size()),
      region_output_(quantized_->network.layers[region_index_].output.size()) {}

const std::vector<float>& Int16Backend::run(const float* input) {
    quantize_tensor(input, input_.size(), quantized_->input_q, input_.data());
    engine_.run(input_.data());
    const Layer& region = quantized_->network.layers[region_index_];
    const std::vector<int16_t>& raw = engine_.layer_output(region_index_);
    dequantize_tensor(raw.data(), raw.size(), quantized_->layers[region_index_].output_q,
                      region_output_.data());
    region_activate(region.region(), region.output, region_output_.data());
    return region_output_;
}

std::vector<float> Int16Backend::layer_output(int i) const {
    if (i == region_index_) return region_output_;
    const std::vector<int16_t>& raw = engine_.layer_output(i);
    std::vector<float> out(raw.size());
    dequantize_tensor(raw.data(), raw.size(), quantized_->layers[i].output_q, out.data());
    return out;
}

std::vector<LayerTiming> Int16Backend::layer_times() const {
    return host_layer_times(engine_.layer_milliseconds());
}

std::string Int16Backend::name() const { return std::string("cpu (int16, ") + isa_name(engine_.isa()) + ")"; }

}  // namespace fpgacnn

#include "pipeline/int16_backend.hpp"

#include "core/detection_output.hpp"
#include "core/thread_pool.hpp"
#include "float/yolo_activate.hpp"
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

// Element operations per value of the host steps, for parallel_for_ranges' split: a conversion is
// a few, a logistic (exp in double) some tens.
constexpr std::size_t kConvertCost = 4;
constexpr std::size_t kLogisticCost = 40;

}  // namespace

Int16Backend::Int16Backend(std::shared_ptr<const QuantizedNetwork> quantized, Int16Isa isa, int threads,
                           bool keep_layer_outputs)
    : quantized_(std::move(quantized)),
      engine_(require(quantized_), isa, threads, keep_layer_outputs),
      output_layers_(quantized_->network.output_layer_indices()),
      input_(quantized_->network.input.size()),
      detection_output_(quantized_->network.detection_output_size()) {
    // The engine's pool is the shared one unless a thread count is given; the host steps then get
    // a pool of that size too (both run in turn, never at once).
    if (threads > 0) {
        own_pool_ = std::make_unique<ThreadPool>(threads);
        pool_ = own_pool_.get();
    } else {
        pool_ = &ThreadPool::shared();
    }
}

Int16Backend::~Int16Backend() = default;

const std::vector<float>& Int16Backend::run(const float* input) {
    // The host steps run on the pool too: single-threaded, the input conversion and the yolo heads'
    // logistic were a tenth of a yolov3-tiny int8 frame. Element-wise, so the split changes no bit.
    const int input_q = quantized_->input_q;
    pool_->parallel_for_ranges(input_.size(), kConvertCost, [&](std::size_t begin, std::size_t end) {
        quantize_tensor(input + begin, end - begin, input_q, input_.data() + begin);
    });
    engine_.run(input_.data());
    // Every output layer ([region], or each [yolo] head) dequantized and activated on the host.
    float* out = detection_output_.data();
    for (const int i : output_layers_) {
        const Layer& layer = quantized_->network.layers[static_cast<std::size_t>(i)];
        const int16_t* raw = engine_.layer_output(i).data();
        const int q = quantized_->layers[static_cast<std::size_t>(i)].output_q;
        if (layer.type == LayerType::Yolo) {
            const YoloParams& yolo = layer.yolo();
            detail::check_yolo_shape(yolo, layer.output);
            const std::size_t plane = static_cast<std::size_t>(layer.output.h) * layer.output.w;
            pool_->parallel_for_ranges(
                static_cast<std::size_t>(layer.output.c), plane * kLogisticCost,
                [&](std::size_t first, std::size_t end) {
                    dequantize_tensor(raw + first * plane, (end - first) * plane, q, out + first * plane);
                    detail::yolo_activate_channels(yolo, layer.output, out, static_cast<int>(first),
                                                   static_cast<int>(end));
                });
        } else {
            dequantize_tensor(raw, layer.output.size(), q, out);
            output_layer_activate(layer, out);
        }
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

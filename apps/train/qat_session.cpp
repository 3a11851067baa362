#include "qat_session.hpp"

#include <algorithm>
#include <memory>
#include <utility>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "score_distance.hpp"

namespace fpgacnn::train_tool {

Network fold_for_qat(Network network) {
    fold_batchnorm(network);
    for (Layer& layer : network.layers) {
        if (layer.type == LayerType::Convolutional && layer.conv().bn_folded())
            layer.conv().batch_normalize = false;
    }
    return network;
}

Network unfold_for_cfg(Network trained, const Network& cfg_network) {
    for (Layer& layer : trained.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        if (!cfg_network.layers.at(static_cast<std::size_t>(layer.index)).conv().batch_normalize) continue;
        ConvParams& conv = layer.conv();
        const auto filters = static_cast<std::size_t>(conv.filters);
        conv.batch_normalize = true;
        conv.bn_scales.assign(filters, 1.0f);
        conv.bn_mean.assign(filters, 0.0f);
        conv.bn_variance.assign(filters, 1.0f);
    }
    return trained;
}

std::vector<LayerWidths> qat_widths(const TrainOptions& options, const Network& network) {
    if (options.qat_plan.empty()) return uniform_conv_widths(network, options.qat == "int8" ? 8 : 16);
    // The cfg alone (no weights): the file's widths are wanted, not its weights' fingerprint.
    const QuantizedNetwork plan = load_quantized_network(options.qat_plan, load_darknet_cfg(options.cfg));
    std::vector<LayerWidths> widths(plan.layers.size());
    for (std::size_t i = 0; i < widths.size(); ++i) {
        widths[i].weight_bits = plan.layers[i].weight_bits;
        widths[i].output_bits = plan.layers[i].output_bits;
    }
    return widths;
}

QatSession::QatSession(const TrainOptions& options, const Network& network,
                       const train::TrainingOptions& training, std::vector<std::string> calibration_images)
    : cfg_(options.cfg),
      widths_(qat_widths(options, network)),
      images_(std::move(calibration_images)),
      quantizer_(network),
      score_weight_(options.qat_score_weight) {
    if (options.qat_loss == "teacher") teacher_ = std::make_unique<train::FloatTrainer>(network, training);
}

float QatSession::teacher_step(train::FloatTrainer& student, const float* input, const float* truth) {
    const Network& network = student.network();
    std::vector<int> heads;  // the [region] / [yolo] layers, each after a conv
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Region && layer.type != LayerType::Yolo) continue;
        if (layer.index < 1 ||
            network.layers[static_cast<std::size_t>(layer.index) - 1].type != LayerType::Convolutional) {
            throw Error(network.cfg_path +
                        ": --qat-loss teacher needs each [region] / [yolo] layer after a "
                        "conv layer; layer " +
                        std::to_string(layer.index) + " is not");
        }
        heads.push_back(layer.index);
    }
    if (heads.empty())
        throw Error(network.cfg_path + ": --qat-loss teacher needs a [region] or [yolo] layer");
    const auto batch = static_cast<std::uint64_t>(student.batch());
    const std::uint64_t seen = student.seen() + batch;
    student.set_seen(seen);
    teacher_->forward(input, truth, seen);
    student.forward(input, truth, seen);
    // Each head's own deltas replaced by the distance to the teacher's activated outputs. The region's
    // backward (darknet's GPU semantics) takes x, y and objectness through the logistic and passes the
    // class deltas to the logits as a softmax cross-entropy with the teacher's probabilities as soft
    // targets; the yolo's backward passes them all as they are, so its logistic entries are a binary
    // cross-entropy with soft targets on the logits. w and h are raw in both.
    double cost = 0;
    for (const int head : heads) {
        std::vector<float>& delta = student.delta(head);
        const std::vector<float>& target = teacher_->output(head);
        const std::vector<float>& output = student.output(head);
        for (std::size_t k = 0; k < delta.size(); ++k) {
            delta[k] = target[k] - output[k];  // darknet's deltas are minus the gradient
            cost += 0.5 * static_cast<double>(delta[k]) * delta[k];
        }
        cost += add_score_deltas(network.layers[static_cast<std::size_t>(head)], student.batch(), target,
                                 output, score_weight_, delta);
    }
    student.backward(nullptr);
    const auto subdivisions = static_cast<std::uint64_t>(student.options().solver.subdivisions);
    if ((seen / batch) % subdivisions == 0) student.update(seen);
    return static_cast<float>(cost);
}

CalibrationOptions QatSession::calibration_options() const {
    CalibrationOptions options;  // fpgacnn-quantize's defaults
    options.widths = widths_;
    return options;
}

QuantizedNetwork QatSession::recalibrate(const Network& network) {
    QuantizedNetwork fixed_point = quantize_network(network);
    quantizer_.set_plan(fixed_point);
    return fixed_point;
}

QuantizedNetwork QatSession::quantize_weights(const std::string& weights_path) const {
    return quantize_network(load_darknet_model(cfg_, weights_path));
}

QuantizedNetwork QatSession::quantize_network(const Network& network) const {
    return calibrate(network, images_, calibration_options()).quantized;
}

AccuracyReport score_against_float(const std::string& cfg, const std::string& float_weights,
                                   const QuantizedNetwork& fixed_point,
                                   const std::vector<std::string>& images) {
    const Network reference_network = load_darknet_model(cfg, float_weights);
    BackendOptions cpu;
    cpu.device = "cpu";
    cpu.precision = Precision::Float;
    const std::unique_ptr<Backend> reference = make_backend(reference_network, cpu);
    cpu.precision = Precision::Mixed;
    cpu.keep_layer_outputs = true;  // evaluate_quantization compares every layer
    cpu.quantized =
        std::shared_ptr<const QuantizedNetwork>(std::shared_ptr<void>(), &fixed_point);  // non-owning
    const std::unique_ptr<Backend> quantized = make_backend(fixed_point.network, cpu);
    return evaluate_quantization(reference_network, *reference, *quantized, images);
}

}  // namespace fpgacnn::train_tool

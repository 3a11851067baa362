#include "train/float_trainer.hpp"

#include <algorithm>
#include <string>

#include "core/darknet_reorg.hpp"
#include "float/layer_checks.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"
#include "train/adam_update.hpp"
#include "train/device_gradients.hpp"
#include "train/layer_backward.hpp"
#include "train/region_loss.hpp"
#include "train/sgd_update.hpp"
#include "train/yolo_loss.hpp"

namespace fpgacnn::train {

namespace {

void require_trainable_conv(const Layer& layer) {
    const ConvParams& conv = layer.conv();
    if (conv.bn_folded()) {
        throw Error(detail::describe_layer(layer) +
                    ": its batch-norm is folded into the weights; training needs the scales and rolling "
                    "statistics: load with load_darknet_cfg + load_darknet_weights, not load_darknet_model");
    }
    const std::size_t per_filter = static_cast<std::size_t>(layer.input.c) * conv.size * conv.size;
    const auto filters = static_cast<std::size_t>(conv.filters);
    const bool bn_sizes =
        !conv.batch_normalize || (conv.bn_scales.size() == filters && conv.bn_mean.size() == filters &&
                                  conv.bn_variance.size() == filters);
    if (conv.weights.size() != per_filter * filters || conv.biases.size() != filters || !bn_sizes) {
        throw Error(detail::describe_layer(layer) +
                    " has no parameters of its shape: load its .weights (or synthetic weights) first");
    }
    if (conv.activation == Activation::Mish) {
        throw Error(
            detail::describe_layer(layer) +
            ": training with mish is not implemented (pjreddie's darknet, the reference, has no mish)");
    }
}

// darknet's batch variance divides by batch*spatial - 1.
void require_batch_statistics(const Layer& layer, int batch) {
    const ConvParams& conv = layer.conv();
    if (conv.batch_normalize && static_cast<std::size_t>(batch) * layer.output.h * layer.output.w < 2) {
        throw Error(detail::describe_layer(layer) +
                    ": batch-norm in training needs at least two values a channel, but batch " +
                    std::to_string(batch) + " x " + std::to_string(layer.output.h) + "x" +
                    std::to_string(layer.output.w) + " gives one; raise [net] batch");
    }
}

void require_trainable(const Network& network, const TrainingOptions& options) {
    if (network.layers.empty()) throw Error(network.cfg_path + ": the network has no layers");
    if (options.layers.size() != network.layers.size()) {
        throw Error(network.cfg_path + ": training options for " + std::to_string(options.layers.size()) +
                    " layers, but the network has " + std::to_string(network.layers.size()) +
                    "; read both from the same cfg");
    }
    if (!network.weights_loaded) throw Error(network.cfg_path + ": load weights before training");
    for (const Layer& layer : network.layers) {
        switch (layer.type) {
            case LayerType::Convolutional:
                require_trainable_conv(layer);
                require_batch_statistics(layer, options.solver.batch);
                break;
            case LayerType::Region:
                if (options.regions.count(layer.index) == 0) {
                    throw Error(detail::describe_layer(layer) + ": no loss options read for it");
                }
                break;
            case LayerType::Shortcut:
                if (layer.shortcut().activation == Activation::Mish) {
                    throw Error(detail::describe_layer(layer) + ": training with mish is not implemented");
                }
                break;
            case LayerType::Yolo:
                if (options.yolos.count(layer.index) == 0) {
                    throw Error(detail::describe_layer(layer) + ": no loss options read for it");
                }
                break;
            case LayerType::Unsupported:
                throw Error(detail::describe_layer(layer) +
                            " is parsed for planning only; it cannot be trained");
            case LayerType::AvgPool:
            case LayerType::Softmax:
            case LayerType::Dropout:
            case LayerType::Cost:
            case LayerType::Crop:
                throw Error(detail::describe_layer(layer) +
                            ": training darknet's classifier layers is not implemented (fpgacnn-train trains "
                            "[region] detectors)");
            case LayerType::MaxPool:
            case LayerType::Route:
            case LayerType::Reorg:
            case LayerType::Upsample:
                break;
        }
    }
}

}  // namespace

FloatTrainer::FloatTrainer(Network network, TrainingOptions options)
    : network_(std::move(network)), options_(std::move(options)) {
    require_trainable(network_, options_);
    const std::size_t layers = network_.layers.size();
    const auto batch = static_cast<std::size_t>(options_.solver.batch);
    outputs_.resize(layers);
    deltas_.resize(layers);
    conv_states_.resize(layers);
    pool_indexes_.resize(layers);
    std::size_t workspace_floats = 0;
    for (const Layer& layer : network_.layers) {
        outputs_[layer.index].assign(layer.output.size() * batch, 0.0f);
        deltas_[layer.index].assign(layer.output.size() * batch, 0.0f);
        if (layer.type == LayerType::Convolutional) {
            conv_states_[layer.index] = make_conv_train_state(layer, options_.solver.adam);
            workspace_floats = std::max(workspace_floats, conv_train_workspace_floats(layer));
        }
    }
    workspace_.assign(workspace_floats, 0.0f);
}

const ConvGradients& FloatTrainer::gradients(int i) const {
    if (i < 0 || static_cast<std::size_t>(i) >= network_.layers.size() ||
        network_.layers[i].type != LayerType::Convolutional) {
        throw Error("FloatTrainer::gradients: layer " + std::to_string(i) + " is not a convolutional layer");
    }
    return conv_states_[i].gradients;
}

ConvGradients& FloatTrainer::gradients(int i) {
    const FloatTrainer& self = *this;
    return const_cast<ConvGradients&>(self.gradients(i));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

float FloatTrainer::forward(const float* input, const float* truth, std::uint64_t seen) {
    const int batch = options_.solver.batch;
    const bool quantized = fake_quant_ != nullptr && fake_quant_->has_plan();
    if (quantized) input = fake_quant_->quantize_input(input, batch, network_.input.size());
    input_ = input;
    float cost = 0;
    int loss_layers = 0;
    for (Layer& layer : network_.layers) {
        const int i = layer.index;
        const float* layer_input = i == 0 ? input : outputs_[i - 1].data();
        float* output = outputs_[i].data();
        std::fill(deltas_[i].begin(), deltas_[i].end(), 0.0f);
        const std::size_t in_size = layer.input.size();
        const std::size_t out_size = layer.output.size();
        switch (layer.type) {
            case LayerType::Convolutional:
                if (quantized) {
                    fake_quant_->conv_forward(layer, batch, layer_input, output);
                } else {
                    conv_forward_train(layer, batch, layer_input, output, workspace_.data(), conv_states_[i]);
                }
                break;
            case LayerType::MaxPool:
                maxpool_forward_train(layer, batch, layer_input, output, pool_indexes_[i]);
                break;
            case LayerType::Route: {
                std::vector<const std::vector<float>*> sources;
                for (const int source : layer.route().inputs) sources.push_back(&outputs_[source]);
                route_forward_batch(layer, sources, batch, output);
                break;
            }
            case LayerType::Reorg:
                for (int b = 0; b < batch; ++b) {
                    detail::darknet_reorg(layer, layer_input + b * in_size, output + b * out_size,
                                          detail::describe_layer(layer));
                }
                break;
            case LayerType::Upsample:
                for (int b = 0; b < batch; ++b)
                    upsample_forward(layer, layer_input + b * in_size, output + b * out_size);
                break;
            case LayerType::Shortcut: {
                const int from = layer.shortcut().from;
                const TensorShape& from_shape = network_.layers[from].output;
                for (int b = 0; b < batch; ++b) {
                    shortcut_forward(layer, layer_input + b * in_size,
                                     outputs_[from].data() + b * from_shape.size(), from_shape,
                                     output + b * out_size);
                }
                break;
            }
            case LayerType::Region: {
                std::copy(layer_input, layer_input + in_size * batch, output);
                for (int b = 0; b < batch; ++b)
                    region_activate(layer.region(), layer.output, output + b * out_size);
                if (truth == nullptr) {
                    throw Error(detail::describe_layer(layer) +
                                ": training a [region] layer needs truth boxes");
                }
                cost +=
                    region_loss(layer, options_.regions.at(i), batch, output, truth, seen, deltas_[i].data());
                ++loss_layers;
                break;
            }
            case LayerType::Yolo: {
                std::copy(layer_input, layer_input + in_size * batch, output);
                for (int b = 0; b < batch; ++b)
                    yolo_activate(layer.yolo(), layer.output, output + b * out_size);
                if (truth == nullptr) {
                    throw Error(detail::describe_layer(layer) +
                                ": training a [yolo] layer needs truth boxes");
                }
                cost += yolo_loss(layer, options_.yolos.at(i), network_.input, batch, output, truth,
                                  deltas_[i].data());
                ++loss_layers;
                break;
            }
            case LayerType::Unsupported:  // refused by the constructor
            case LayerType::AvgPool:
            case LayerType::Softmax:
            case LayerType::Dropout:
            case LayerType::Cost:
            case LayerType::Crop:
                throw Error(detail::describe_layer(layer) + " cannot be trained");
        }
    }
    // calc_network_cost: the mean over the layers with a cost (YOLOv3's heads), not their sum.
    return loss_layers == 0 ? cost : cost / static_cast<float>(loss_layers);
}

void FloatTrainer::backward(float* input_delta) {
    if (input_ == nullptr) throw Error("FloatTrainer::backward called before forward");
    const int batch = options_.solver.batch;
    const bool quantized = fake_quant_ != nullptr && fake_quant_->has_plan();
    for (auto it = network_.layers.rbegin(); it != network_.layers.rend(); ++it) {
        const Layer& layer = *it;
        const int i = layer.index;
        if (options_.layers[i].stop_backward) break;  // backward_network: neither it nor any before it
        const float* layer_input = i == 0 ? input_ : outputs_[i - 1].data();
        float* previous_delta = i == 0 ? input_delta : deltas_[i - 1].data();
        float* delta = deltas_[i].data();
        switch (layer.type) {
            case LayerType::Convolutional:
                if (quantized) {  // straight-through: saturated outputs pass no gradient
                    fake_quant_->clip_output_delta(layer, batch, delta);
                    fake_quant_->swap_weights(network_.layers[i]);  // the forward's quantized weights
                }
                if (device_gradients_ != nullptr && device_gradients_->runs(i)) {
                    conv_backward_to_conv_output(layer, batch, outputs_[i].data(), delta, conv_states_[i]);
                    device_gradients_->add_gradients(layer, batch, layer_input, delta, previous_delta,
                                                     conv_states_[i].gradients);
                } else {
                    conv_backward(layer, batch, layer_input, outputs_[i].data(), delta, previous_delta,
                                  workspace_.data(), conv_states_[i]);
                }
                if (quantized) fake_quant_->swap_weights(network_.layers[i]);  // back to the float ones
                break;
            case LayerType::MaxPool:
                if (previous_delta != nullptr) maxpool_backward(pool_indexes_[i], delta, previous_delta);
                break;
            case LayerType::Route: {
                std::vector<std::vector<float>*> sources;
                for (const int source : layer.route().inputs) sources.push_back(&deltas_[source]);
                route_backward(layer, sources, batch, delta);
                break;
            }
            case LayerType::Reorg:
                if (previous_delta != nullptr) reorg_backward(layer, batch, delta, previous_delta);
                break;
            case LayerType::Upsample:
                if (previous_delta != nullptr) upsample_backward(layer, batch, delta, previous_delta);
                break;
            case LayerType::Shortcut: {
                const int from = layer.shortcut().from;
                std::vector<float> unused;
                if (previous_delta == nullptr) {
                    unused.assign(layer.input.size() * batch, 0.0f);
                    previous_delta = unused.data();
                }
                shortcut_backward(layer, batch, outputs_[i].data(), delta, previous_delta,
                                  deltas_[from].data(), network_.layers[from].output);
                break;
            }
            case LayerType::Region: {
                std::vector<float> unused;
                if (previous_delta == nullptr) {
                    unused.assign(layer.input.size() * batch, 0.0f);
                    previous_delta = unused.data();
                }
                region_backward(layer, batch, outputs_[i].data(), delta, previous_delta);
                break;
            }
            case LayerType::Yolo:
                if (previous_delta != nullptr) yolo_backward(layer, batch, delta, previous_delta);
                break;
            case LayerType::Unsupported:
            case LayerType::AvgPool:
            case LayerType::Softmax:
            case LayerType::Dropout:
            case LayerType::Cost:
            case LayerType::Crop:
                throw Error(detail::describe_layer(layer) + " cannot be trained");
        }
    }
}

void FloatTrainer::update(std::uint64_t seen) {
    const SolverOptions& solver = options_.solver;
    const std::uint64_t batch_num = seen / static_cast<std::uint64_t>(solver.images_per_update());
    const float uniform01 = std::uniform_real_distribution<float>(0.0f, 1.0f)(random_rate_);
    const float rate = current_learning_rate(solver, batch_num, uniform01);
    for (Layer& layer : network_.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        if (fake_quant_ != nullptr && fake_quant_->has_plan())
            fake_quant_->clip_weight_gradients(layer, conv_states_[layer.index].gradients);
        const float layer_rate = rate * options_.layers[layer.index].learning_rate_scale;
        ConvGradients& gradients = conv_states_[layer.index].gradients;
        if (solver.adam) {
            const AdamStep step{layer_rate,  solver.b1,    solver.b2,
                                solver.eps,  solver.decay, solver.images_per_update(),
                                updates_ + 1};
            adam_update(layer.conv(), gradients, step);
        } else {
            sgd_update(layer.conv(), gradients,
                       SgdStep{layer_rate, solver.momentum, solver.decay, solver.images_per_update()});
        }
    }
    ++updates_;  // darknet's ++*net->t, which counts this program's updates (Adam's bias correction)
}

float FloatTrainer::train_batch(const float* input, const float* truth) {
    const auto batch = static_cast<std::uint64_t>(options_.solver.batch);
    seen_ += batch;
    const float cost = forward(input, truth, seen_);
    backward(nullptr);
    if ((seen_ / batch) % static_cast<std::uint64_t>(options_.solver.subdivisions) == 0) update(seen_);
    return cost;
}

}  // namespace fpgacnn::train

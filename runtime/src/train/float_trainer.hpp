// Float training of a darknet network on the CPU, step for step as darknet trains it
// (train_network_datum: forward_network with net.train = 1, backward_network, update_network), with
// the [region] loss sent back the way darknet's GPU path does and the [yolo] loss as its CPU path does
// (docs/darknet-semantics.md, "Training (float)"). Kept apart from FloatEngine so the inference path stays as
// fast as it was: this one keeps every layer's batch of outputs and deltas.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "fpgacnn/network.hpp"
#include "train/conv_train.hpp"
#include "train/fake_quant.hpp"
#include "train/training_options.hpp"

namespace fpgacnn::train {

class DeviceGradients;

class FloatTrainer {
public:
    /// `network` with its weights loaded and batch-norm NOT folded (load_darknet_cfg +
    /// load_darknet_weights, not load_darknet_model): the rolling mean and variance are trained too.
    /// Throws Error naming the layer for what training does not cover (mish, AlexeyAB's [yolo] loss
    /// options, planning-only sections, a folded batch-norm).
    FloatTrainer(Network network, TrainingOptions options);

    int batch() const { return options_.solver.batch; }
    const Network& network() const { return network_; }
    Network& network() { return network_; }
    const TrainingOptions& options() const { return options_; }
    /// Images trained on so far (darknet's *net->seen).
    std::uint64_t seen() const { return seen_; }
    /// Sets the images-trained counter, e.g. when resuming from a checkpoint (with gradients(i)'s
    /// momentum restored too, the next train_batch is the one an uninterrupted run would take).
    void set_seen(std::uint64_t seen) { seen_ = seen; }
    /// Weight updates this trainer made (darknet's *net->t: it starts at 0 in every run, not from the
    /// weights' `seen`); Adam's bias correction uses it. A checkpoint restores it.
    std::uint64_t updates() const { return updates_; }
    void set_updates(std::uint64_t updates) { updates_ = updates; }

    /// forward_network in training mode on batch() images (batch() * network().input.size() floats)
    /// with their truth boxes (batch() * kMaxTruthBoxes * kTruthFloats floats, truth_boxes.hpp; may be
    /// null when the network has no [region] or [yolo]). Every delta is reset, then the loss layers'
    /// set. `seen` is darknet's counter including this batch (it steers the region's prior warm-up).
    /// Returns the cost: darknet's mean over the loss layers.
    float forward(const float* input, const float* truth, std::uint64_t seen);
    /// backward_network from the deltas forward() left (or the caller wrote into delta()): gradients
    /// are added to gradients(i); d loss / d input added to `input_delta` when not null. Stops before
    /// a layer with stopbackward=1, as darknet does.
    void backward(float* input_delta = nullptr);
    /// update_network: SGD (or Adam with adam=1) at the rate of update number seen / (batch * subdivisions),
    /// times each layer's own learning_rate.
    void update(std::uint64_t seen);
    /// train_network_datum: seen += batch, forward, backward, and an update once batch * subdivisions
    /// images have been summed. Returns the cost.
    float train_batch(const float* input, const float* truth);

    /// Layer i's batch of outputs (after forward()).
    const std::vector<float>& output(int i) const { return outputs_.at(static_cast<std::size_t>(i)); }
    /// Layer i's batch of deltas (d loss / d output, turned in place into the pre-activation's by
    /// backward()).
    std::vector<float>& delta(int i) { return deltas_.at(static_cast<std::size_t>(i)); }
    const std::vector<float>& delta(int i) const { return deltas_.at(static_cast<std::size_t>(i)); }
    /// Conv layers' dX and dW in fixed point on a device (device_gradients.hpp) for the layers it
    /// runs, float for the others; null (the default): all in float. Not owned; must outlive backward().
    void set_device_gradients(DeviceGradients* gradients) { device_gradients_ = gradients; }
    /// Quantization-aware training (fake_quant.hpp): with a quantizer that has a plan, forward runs at
    /// its fixed-point widths and backward is straight-through; nullptr (the default): plain float.
    /// The quantizer must outlive its use here.
    void set_fake_quantizer(FakeQuantizer* quantizer) { fake_quant_ = quantizer; }

    /// A conv layer's accumulated gradients (momentum included after an update).
    const ConvGradients& gradients(int i) const;
    /// The same, writable: a checkpoint restores the momentum they carry between updates.
    ConvGradients& gradients(int i);

private:
    Network network_;
    TrainingOptions options_;
    std::uint64_t seen_ = 0;
    std::uint64_t updates_ = 0;
    const float* input_ = nullptr;  // the last forward()'s input, read again by backward()
    std::vector<std::vector<float>> outputs_;
    std::vector<std::vector<float>> deltas_;
    std::vector<ConvTrainState> conv_states_;             // by layer index (empty for other layers)
    std::vector<std::vector<std::size_t>> pool_indexes_;  // by layer index
    std::vector<float> workspace_;
    DeviceGradients* device_gradients_ = nullptr;
    FakeQuantizer* fake_quant_ = nullptr;  // --qat
    std::mt19937 random_rate_{0};          // the random policy's draws (darknet: rand_uniform(0, 1))
};

}  // namespace fpgacnn::train

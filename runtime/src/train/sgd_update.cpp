#include "train/sgd_update.hpp"

#include <cstddef>
#include <vector>

namespace fpgacnn::train {

namespace {

// axpy_cpu then scal_cpu, with darknet's float factors.
void step_and_decay_momentum(std::vector<float>& values, std::vector<float>& updates, float rate,
                             float momentum) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] += rate * updates[i];
    for (float& u : updates) u *= momentum;
}

}  // namespace

void sgd_update(ConvParams& conv, ConvGradients& gradients, const SgdStep& step) {
    const float rate = step.learning_rate / static_cast<float>(step.images);
    step_and_decay_momentum(conv.biases, gradients.bias_updates, rate, step.momentum);
    if (!gradients.scale_updates.empty()) {
        step_and_decay_momentum(conv.bn_scales, gradients.scale_updates, rate, step.momentum);
    }
    const float decay = -step.decay * static_cast<float>(step.images);
    for (std::size_t i = 0; i < conv.weights.size(); ++i)
        gradients.weight_updates[i] += decay * conv.weights[i];
    step_and_decay_momentum(conv.weights, gradients.weight_updates, rate, step.momentum);
}

}  // namespace fpgacnn::train

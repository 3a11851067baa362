// darknet's update_convolutional_layer (SGD with momentum and weight decay; the *_updates arrays are
// the momentum buffers).
#pragma once

#include "fpgacnn/network.hpp"
#include "train/conv_train.hpp"

namespace fpgacnn::train {

struct SgdStep {
    float learning_rate = 0;  ///< this update's rate (current_learning_rate)
    float momentum = 0;
    float decay = 0;
    int images = 1;  ///< images whose gradients were summed (batch * subdivisions)
};

/// biases (and BN scales) += rate/images * updates; weights: updates -= decay*images * weights, then
/// weights += rate/images * updates; every updates array then *= momentum.
void sgd_update(ConvParams& conv, ConvGradients& gradients, const SgdStep& step);

}  // namespace fpgacnn::train

// darknet's Adam update (adam_update_gpu in blas_kernels.cu, called by update_convolutional_layer_gpu
// with adam=1; darknet's CPU update has no Adam). Per array w with summed gradient d and moments m, v:
//   m *= B1; v *= B2; d -= decay * images * w; m += (1 - B1) * d; v += (1 - B2) * d * d;
//   w += rate * mhat / (sqrt(vhat) + eps), mhat = m / (1 - B1^t), vhat = v / (1 - B2^t); d = 0.
// Unlike SGD the rate is not divided by the images (Adam's step is scale-free), and the decay applies
// to biases and batch-norm scales too.
#pragma once

#include <cstdint>

#include "fpgacnn/network.hpp"
#include "train/conv_train.hpp"

namespace fpgacnn::train {

struct AdamStep {
    float learning_rate = 0;  ///< this update's rate (current_learning_rate times the layer's scale)
    float b1 = 0;             ///< the cfg's B1, B2 and eps (their defaults: SolverOptions)
    float b2 = 0;
    float eps = 0;
    float decay = 0;
    int images = 1;       ///< images whose gradients were summed (batch * subdivisions)
    std::uint64_t t = 1;  ///< updates so far, this one included (darknet's *net->t)
};

/// One Adam update of the layer's weights, biases and batch-norm scales (the moments must be sized:
/// make_conv_train_state with adam).
void adam_update(ConvParams& conv, ConvGradients& gradients, const AdamStep& step);

}  // namespace fpgacnn::train

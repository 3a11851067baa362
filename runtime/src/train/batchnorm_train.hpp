// darknet's batch normalization in training mode (forward_batchnorm_layer / backward_batchnorm_layer
// with net.train = 1), on a conv layer's batch of outputs laid out [batch][channels][spatial].
#pragma once

#include <vector>

namespace fpgacnn::train {

/// The per-channel statistics and saved tensors that the backward pass reads.
struct BatchNormState {
    std::vector<float> mean;      ///< of this batch, per channel
    std::vector<float> variance;  ///< of this batch (divided by batch*spatial - 1)
    std::vector<float> x;         ///< the conv output before normalization
    std::vector<float> x_norm;    ///< after normalization, before scale and bias
};

struct BatchNormShape {
    int batch = 0;
    int channels = 0;
    int spatial = 0;  ///< h * w
};

/// The layer's batch-norm parameters (ConvParams' bn_scales, biases, bn_mean, bn_variance).
struct BatchNormParams {
    std::vector<float>& scales;
    std::vector<float>& biases;
    std::vector<float>& rolling_mean;
    std::vector<float>& rolling_variance;
};

/// In place on `values`: batch mean and variance, rolling stats moved 1 % towards them, normalize,
/// then scale and bias.
void batchnorm_forward_train(const BatchNormShape& shape, const BatchNormParams& params, float* values,
                             BatchNormState& state);

/// backward_batchnorm_layer: bias and scale gradients added to bias_updates / scale_updates, `delta`
/// turned into the gradient with respect to the un-normalized conv output.
void batchnorm_backward(const BatchNormShape& shape, const std::vector<float>& scales,
                        const BatchNormState& state, float* delta, std::vector<float>& bias_updates,
                        std::vector<float>& scale_updates);

/// backward_bias: bias_updates[c] += the sum of delta over the batch and the channel's plane.
void add_bias_gradient(const float* delta, int batch, int channels, int spatial,
                       std::vector<float>& bias_updates);

}  // namespace fpgacnn::train

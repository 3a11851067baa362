// A [convolutional] layer in training mode on a batch: forward keeping what backward needs (the
// batch-norm statistics and tensors), backward as darknet's backward_convolutional_layer (input delta,
// weight, bias and scale gradients).
#pragma once

#include <cstddef>
#include <vector>

#include "fpgacnn/network.hpp"
#include "train/batchnorm_train.hpp"

namespace fpgacnn::train {

/// The gradients a conv layer accumulates until the next SGD update (darknet's *_updates arrays,
/// which also carry the momentum between updates).
struct ConvGradients {
    std::vector<float> weight_updates;
    std::vector<float> bias_updates;
    std::vector<float> scale_updates;  ///< empty without batch_normalize
    /// Adam's first and second moments (darknet's m / v, bias_m / bias_v, scale_m / scale_v): each the
    /// size of the array above it with adam=1, empty otherwise.
    std::vector<float> weight_m, weight_v;
    std::vector<float> bias_m, bias_v;
    std::vector<float> scale_m, scale_v;
};

struct ConvTrainState {
    ConvGradients gradients;
    BatchNormState batchnorm;
};

/// Floats of the column matrix of one image (0 for a 1x1, stride-1, unpadded layer: its input is one).
std::size_t conv_train_workspace_floats(const Layer& layer);

/// Zeroed gradients of the layer's sizes (and Adam's moments with `adam`).
ConvTrainState make_conv_train_state(const Layer& layer, bool adam = false);

/// forward_convolutional_layer with net.train = 1 on `batch` images: the convolution (a 1x1 stride-2
/// layer samples every other pixel; darknet's own CPU code does not, docs/darknet-semantics.md), then
/// batch-norm in training mode (which moves `layer`'s rolling mean and variance) or the bias, then
/// the activation.
void conv_forward_train(Layer& layer, int batch, const float* input, float* output, float* workspace,
                        ConvTrainState& state);

/// backward_convolutional_layer's first half: the activation's gradient, then batch-norm's backward
/// (scale and bias gradients) or the bias gradient; `delta` becomes d loss / d conv output (before
/// batch-norm), what the convolution's own gradients (dW, dX) are made of.
void conv_backward_to_conv_output(const Layer& layer, int batch, const float* output, float* delta,
                                  ConvTrainState& state);

/// backward_convolutional_layer's second half, in float: from `delta` (d loss / d conv output) the
/// weight gradient added to gradients.weight_updates and, when `input_delta` is not null, d loss /
/// d input added to it.
void conv_backward_gradients(const Layer& layer, int batch, const float* input, const float* delta,
                             float* input_delta, float* workspace, ConvGradients& gradients);

/// backward_convolutional_layer (both halves): `delta` (d loss / d output, changed in place into d loss / d
/// pre-activation) gives the weight, bias and scale gradients (added to state.gradients) and, when
/// `input_delta` is not null, d loss / d input added to it.
void conv_backward(const Layer& layer, int batch, const float* input, const float* output, float* delta,
                   float* input_delta, float* workspace, ConvTrainState& state);

}  // namespace fpgacnn::train

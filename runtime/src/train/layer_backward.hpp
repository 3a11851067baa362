// The backward passes of the layers without parameters, as darknet's backward_*_layer on a batch
// (images one after the other, each of the layer's input or output size). Every pass ADDS into the
// input's delta, since a layer's output may feed several later layers (docs/darknet-semantics.md,
// "Training (float)", says where darknet overwrites instead).
#pragma once

#include <cstddef>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::train {

/// forward_maxpool_layer: the maximum of each window and, in `indexes`, where in the batch's input
/// it was (the first tap of the window holding it, darknet's strict `>`).
void maxpool_forward_train(const Layer& layer, int batch, const float* input, float* output,
                           std::vector<std::size_t>& indexes);
/// backward_maxpool_layer: input_delta[indexes[i]] += delta[i].
void maxpool_backward(const std::vector<std::size_t>& indexes, const float* delta, float* input_delta);

/// forward_route_layer on a batch: `sources[k]` is input k's batch of outputs.
void route_forward_batch(const Layer& layer, const std::vector<const std::vector<float>*>& sources, int batch,
                         float* output);
/// backward_route_layer (with AlexeyAB's groups): each input's slice of the delta added back to it.
void route_backward(const Layer& layer, const std::vector<std::vector<float>*>& source_deltas, int batch,
                    const float* delta);

/// reorg_cpu(..., forward = 1) added: the inverse of [reorg]'s index permutation.
void reorg_backward(const Layer& layer, int batch, const float* delta, float* input_delta);

/// upsample_cpu(..., forward = 0): each input pixel collects the deltas of its stride x stride copies.
void upsample_backward(const Layer& layer, int batch, const float* delta, float* input_delta);

/// backward_shortcut_layer: the activation's gradient applied to `delta` in place (it reads the
/// layer's `output`), then delta added to the previous layer's and, where the shapes overlap
/// (shortcut_cpu), to layer `from`'s (`from_delta`, shape `from_shape`).
void shortcut_backward(const Layer& layer, int batch, const float* output, float* delta, float* input_delta,
                       float* from_delta, const TensorShape& from_shape);

}  // namespace fpgacnn::train

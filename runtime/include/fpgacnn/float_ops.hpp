// The float layer operations of darknet's CPU forward pass, one function per layer type.
// FloatEngine chains them; the int16 backends reuse region_activate on dequantized output.
#pragma once

#include <cstddef>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn {

/// Convolution + bias + activation (batch-norm already folded). `workspace` must hold
/// im2col_workspace_floats(layer) floats.
FPGACNN_API void conv_forward(const Layer& layer, const float* input, float* output, float* workspace);
FPGACNN_API std::size_t im2col_workspace_floats(const Layer& layer);

/// darknet's maxpool: out-of-image taps (right/bottom padding) are ignored (-FLT_MAX).
FPGACNN_API void maxpool_forward(const Layer& layer, const float* input, float* output);

/// darknet's reorg_cpu(..., forward=0) with the layer's input w, h, c.
FPGACNN_API void reorg_forward(const Layer& layer, const float* input, float* output);

/// darknet's route: the outputs of layer.route().inputs concatenated along channels.
/// `layer_outputs` is indexed by layer index (FloatEngine's per-layer buffers).
FPGACNN_API void route_forward(const Layer& layer, const std::vector<std::vector<float>>& layer_outputs,
                               float* output);

/// The region layer's activation in place on the raw output of the last conv layer: logistic on
/// x, y and objectness; softmax over the classes (logistic with softmax=0). Matches darknet's
/// forward_region_layer; w, h and tw/th stay raw.
FPGACNN_API void region_activate(const RegionParams& region, const TensorShape& shape, float* data);

}  // namespace fpgacnn

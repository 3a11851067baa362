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
/// The floats of workspace conv_forward needs for `layer`; 0 for a 1x1, stride 1, unpadded conv or a layer
/// that is no conv.
FPGACNN_API std::size_t im2col_workspace_floats(const Layer& layer);

/// darknet's maxpool: out-of-image taps (right/bottom padding) are ignored (-FLT_MAX).
FPGACNN_API void maxpool_forward(const Layer& layer, const float* input, float* output);

/// darknet's reorg_cpu(..., forward=0) with the layer's input w, h, c.
FPGACNN_API void reorg_forward(const Layer& layer, const float* input, float* output);

/// darknet's route: the outputs of layer.route().inputs concatenated along channels.
/// `layer_outputs` is indexed by layer index (FloatEngine's per-layer buffers).
FPGACNN_API void route_forward(const Layer& layer, const std::vector<std::vector<float>>& layer_outputs,
                               float* output);

/// darknet's upsample_cpu (forward, scale 1): out(x, y) = in(x / stride, y / stride) per channel.
FPGACNN_API void upsample_forward(const Layer& layer, const float* input, float* output);

/// darknet's forward_shortcut_layer: the previous layer's output plus layer `from`'s (`added`, of
/// shape `added_shape`) where they overlap (shortcut_cpu), then the layer's activation.
FPGACNN_API void shortcut_forward(const Layer& layer, const float* input, const float* added,
                                  const TensorShape& added_shape, float* output);

/// darknet's forward_yolo_layer (inference) in place: per mask entry, logistic on x, y, objectness
/// and the classes, w and h raw; with scale_x_y != 1 (AlexeyAB) x, y become x*s - (s - 1)/2.
FPGACNN_API void yolo_activate(const YoloParams& yolo, const TensorShape& shape, float* data);

/// region_activate, yolo_activate or softmax_activate, whichever `layer` (a [region], [yolo] or
/// [softmax] layer) is, on its output's layer.output.size() floats.
FPGACNN_API void output_layer_activate(const Layer& layer, float* data);

/// The region layer's activation in place on the raw output of the last conv layer: logistic on
/// x, y and objectness; softmax over the classes (logistic with softmax=0). Matches darknet's
/// forward_region_layer; w, h and tw/th stay raw.
FPGACNN_API void region_activate(const RegionParams& region, const TensorShape& shape, float* data);

/// darknet's forward_avgpool_layer: out[c] = the float sum of channel c's h*w values, in order,
/// divided by h*w.
FPGACNN_API void avgpool_forward(const Layer& layer, const float* input, float* output);

/// darknet's forward_softmax_layer (softmax_cpu) in place on `shape`'s values: `groups` equal slices
/// of the flattened tensor, each exp(x/temperature - max/temperature) / sum, exp in double.
FPGACNN_API void softmax_activate(const SoftmaxParams& softmax, const TensorShape& shape, float* data);

/// darknet's forward_crop_layer at inference: the centred window ((h - out_h) / 2, (w - out_w) / 2)
/// of each channel, values x * 2 - 1 (as they are with noadjust).
FPGACNN_API void crop_forward(const Layer& layer, const float* input, float* output);

}  // namespace fpgacnn

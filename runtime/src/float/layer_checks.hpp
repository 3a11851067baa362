// Shape and parameter checks shared by the float ops, with messages that name the layer.
#pragma once

#include <string>

#include "core/layer_description.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn::detail {

using core::describe_layer;

/// Throws Error unless `layer` has type `expected`.
void require_layer_type(const Layer& layer, LayerType expected, const char* operation);

/// Throws Error unless the conv layer is runnable: weights loaded with the sizes its shape
/// implies, batch-norm folded, output shape consistent with filters/size/stride/pad.
void require_conv_ready(const Layer& layer);

}  // namespace fpgacnn::detail

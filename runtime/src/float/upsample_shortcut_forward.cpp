// darknet's [upsample] and [shortcut] forward passes (upsample_cpu, shortcut_cpu + activate_array).
#include <algorithm>
#include <cstddef>

#include "core/shortcut_overlap.hpp"
#include "float/darknet_math.hpp"
#include "float/layer_checks.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

void upsample_forward(const Layer& layer, const float* input, float* output) {
    detail::require_layer_type(layer, LayerType::Upsample, "upsample_forward");
    const int stride = layer.upsample().stride;
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    for (int c = 0; c < out.c; ++c) {
        for (int y = 0; y < out.h; ++y) {
            const float* source = input + (static_cast<std::size_t>(c) * in.h + y / stride) * in.w;
            float* target = output + (static_cast<std::size_t>(c) * out.h + y) * out.w;
            for (int x = 0; x < out.w; ++x) target[x] = source[x / stride];
        }
    }
}

void shortcut_forward(const Layer& layer, const float* input, const float* added,
                      const TensorShape& added_shape, float* output) {
    detail::require_layer_type(layer, LayerType::Shortcut, "shortcut_forward");
    const TensorShape& out = layer.output;
    std::copy(input, input + out.size(), output);
    core::for_each_shortcut_pair(out, added_shape, [&](std::size_t out_index, std::size_t added_index) {
        output[out_index] = output[out_index] + added[added_index];
    });
    const Activation activation = layer.shortcut().activation;
    if (activation == Activation::Linear) return;
    for (std::size_t i = 0; i < out.size(); ++i) output[i] = detail::darknet_activate(output[i], activation);
}

}  // namespace fpgacnn

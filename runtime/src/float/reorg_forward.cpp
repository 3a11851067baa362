// darknet's reorg_cpu(..., forward = 0) as [reorg] runs it in YOLOv2. It is not the textbook
// space-to-depth (it scrambles channels across spatial positions), but the trained weights of
// the following layers expect exactly this order, so it is reproduced index for index.
#include <cstddef>

#include "float/layer_checks.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

void reorg_forward(const Layer& layer, const float* input, float* output) {
    detail::require_layer_type(layer, LayerType::Reorg, "reorg_forward");
    const int s = layer.reorg().stride;
    const int w = layer.input.w;
    const int h = layer.input.h;
    const int c = layer.input.c;
    if (s < 1 || c % (s * s) != 0 || layer.output.size() != layer.input.size()) {
        throw Error(detail::describe_layer(layer) + ": reorg stride " + std::to_string(s) +
                    " does not fit its input (channels must be a multiple of stride^2)");
    }
    const int out_c = c / (s * s);
    for (int k = 0; k < c; ++k) {
        const int c2 = k % out_c;
        const int offset = k / out_c;
        for (int j = 0; j < h; ++j) {
            const int h2 = j * s + offset / s;
            float* target = output + (static_cast<std::size_t>(k) * h + j) * w;
            const float* source_row =
                input + (static_cast<std::size_t>(c2) * h * s + h2) * static_cast<std::size_t>(w) * s;
            for (int i = 0; i < w; ++i) target[i] = source_row[i * s + offset % s];
        }
    }
}

}  // namespace fpgacnn

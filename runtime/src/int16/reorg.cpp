// darknet's reorg_cpu(..., forward = 0) on int16, index for index (see docs/darknet-semantics.md):
// with the layer's INPUT w, h, c and oc = c / s^2,
//   out[i + w*(j + h*k)] = in[(i*s + (k/oc)%s) + w*s*((j*s + (k/oc)/s) + h*s*(k%oc))].
// A pure permutation, so the exponent is unchanged.
#include <cstddef>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

void int16_reorg(const Layer& layer, const int16_t* input, int16_t* output) {
    const std::string what = int16_detail::describe_layer(layer);
    if (layer.type != LayerType::Reorg) throw Error("int16_reorg called on " + what);
    const int s = layer.reorg().stride;
    const int w = layer.input.w;
    const int h = layer.input.h;
    const int c = layer.input.c;
    if (s < 1 || c % (s * s) != 0 || layer.output.size() != layer.input.size()) {
        throw Error(what + ": reorg stride " + std::to_string(s) +
                    " does not fit its input (channels must be a multiple of stride^2)");
    }
    const int out_c = c / (s * s);
    for (int k = 0; k < c; ++k) {
        const int c2 = k % out_c;
        const int offset = k / out_c;
        for (int j = 0; j < h; ++j) {
            const int h2 = j * s + offset / s;
            int16_t* target = output + (static_cast<std::size_t>(k) * h + j) * w;
            const int16_t* source_row =
                input + (static_cast<std::size_t>(c2) * h * s + h2) * static_cast<std::size_t>(w) * s;
            for (int i = 0; i < w; ++i) target[i] = source_row[i * s + offset % s];
        }
    }
}

}  // namespace fpgacnn

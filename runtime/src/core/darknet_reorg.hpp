// darknet's reorg_cpu(..., forward = 0) as [reorg] runs it in YOLOv2, for any element type (the
// float path and the int16 backend share it; the HLS kernel has its own streaming copy). It is not
// the textbook space-to-depth (it scrambles channels across spatial positions), but the trained
// weights of the following layers expect exactly this order, so it is reproduced index for index:
// with the layer's INPUT w, h, c and oc = c / s^2,
//   out[i + w*(j + h*k)] = in[(i*s + (k/oc)%s) + w*s*((j*s + (k/oc)/s) + h*s*(k%oc))].
#pragma once

#include <cstddef>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn::detail {

template <typename T>
void darknet_reorg(const Layer& layer, const T* input, T* output, const std::string& layer_name) {
    const int s = layer.reorg().stride;
    const int w = layer.input.w;
    const int h = layer.input.h;
    const int c = layer.input.c;
    if (s < 1 || c % (s * s) != 0 || layer.output.size() != layer.input.size()) {
        throw Error(layer_name + ": reorg stride " + std::to_string(s) +
                    " does not fit its input (channels must be a multiple of stride^2)");
    }
    const int out_c = c / (s * s);
    for (int k = 0; k < c; ++k) {
        const int c2 = k % out_c;
        const int offset = k / out_c;
        for (int j = 0; j < h; ++j) {
            const int h2 = j * s + offset / s;
            T* target = output + (static_cast<std::size_t>(k) * h + j) * w;
            const T* source_row =
                input + (static_cast<std::size_t>(c2) * h * s + h2) * static_cast<std::size_t>(w) * s;
            for (int i = 0; i < w; ++i) target[i] = source_row[i * s + offset % s];
        }
    }
}

}  // namespace fpgacnn::detail

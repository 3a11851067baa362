// The float forward passes of darknet's classifier layers ([avgpool], [softmax], [crop]), each as
// darknet's CPU code computes it (avgpool_layer.c, softmax_layer.c with blas.c, crop_layer.c).
#include <cstddef>

#include "float/darknet_math.hpp"
#include "float/layer_checks.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

void avgpool_forward(const Layer& layer, const float* input, float* output) {
    detail::require_layer_type(layer, LayerType::AvgPool, "avgpool_forward");
    const std::size_t plane = static_cast<std::size_t>(layer.input.h) * layer.input.w;
    for (int c = 0; c < layer.input.c; ++c) {
        const float* channel = input + static_cast<std::size_t>(c) * plane;
        float sum = 0;
        for (std::size_t i = 0; i < plane; ++i) sum += channel[i];
        output[c] = sum / static_cast<float>(plane);  // darknet: output /= l.h*l.w (an int, converted)
    }
}

void softmax_activate(const SoftmaxParams& softmax, const TensorShape& shape, float* data) {
    if (softmax.groups < 1 || shape.size() % static_cast<std::size_t>(softmax.groups) != 0) {
        throw Error("softmax_activate: groups=" + std::to_string(softmax.groups) + " does not divide " +
                    std::to_string(shape.size()) + " values");
    }
    const std::size_t slice = shape.size() / static_cast<std::size_t>(softmax.groups);
    for (int g = 0; g < softmax.groups; ++g) {
        detail::darknet_softmax(data + g * slice, static_cast<int>(slice), softmax.temperature, 1);
    }
}

void crop_forward(const Layer& layer, const float* input, float* output) {
    detail::require_layer_type(layer, LayerType::Crop, "crop_forward");
    const float scale = layer.crop().noadjust ? 1.0f : 2.0f;
    const float shift = layer.crop().noadjust ? 0.0f : -1.0f;
    const int dh = (layer.input.h - layer.output.h) / 2;
    const int dw = (layer.input.w - layer.output.w) / 2;
    std::size_t out = 0;
    for (int c = 0; c < layer.output.c; ++c) {
        for (int y = 0; y < layer.output.h; ++y) {
            const float* row =
                input + (static_cast<std::size_t>(c) * layer.input.h + y + dh) * layer.input.w + dw;
            for (int x = 0; x < layer.output.w; ++x) output[out++] = row[x] * scale + shift;
        }
    }
}

}  // namespace fpgacnn

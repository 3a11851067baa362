#include "train/layer_backward.hpp"

#include <cfloat>

#include "core/darknet_reorg.hpp"
#include "core/shortcut_overlap.hpp"
#include "train/activation_gradient.hpp"

namespace fpgacnn::train {

void maxpool_forward_train(const Layer& layer, int batch, const float* input, float* output,
                           std::vector<std::size_t>& indexes) {
    const MaxPoolParams& pool = layer.maxpool();
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    const int offset = -pool.padding / 2;
    indexes.assign(out.size() * batch, 0);
    std::size_t o = 0;
    for (int b = 0; b < batch; ++b) {
        for (int c = 0; c < out.c; ++c) {
            const std::size_t plane = (static_cast<std::size_t>(b) * in.c + c) * in.h * in.w;
            for (int i = 0; i < out.h; ++i) {
                for (int j = 0; j < out.w; ++j, ++o) {
                    float best = -FLT_MAX;
                    std::size_t best_index =
                        plane;  // darknet's -1 (never used when the window holds a pixel)
                    for (int n = 0; n < pool.size; ++n) {
                        const int y = offset + i * pool.stride + n;
                        if (y < 0 || y >= in.h) continue;
                        for (int m = 0; m < pool.size; ++m) {
                            const int x = offset + j * pool.stride + m;
                            if (x < 0 || x >= in.w) continue;
                            const std::size_t index = plane + static_cast<std::size_t>(y) * in.w + x;
                            if (input[index] > best) {
                                best = input[index];
                                best_index = index;
                            }
                        }
                    }
                    output[o] = best;
                    indexes[o] = best_index;
                }
            }
        }
    }
}

void maxpool_backward(const std::vector<std::size_t>& indexes, const float* delta, float* input_delta) {
    for (std::size_t i = 0; i < indexes.size(); ++i) input_delta[indexes[i]] += delta[i];
}

void route_forward_batch(const Layer& layer, const std::vector<const std::vector<float>*>& sources, int batch,
                         float* output) {
    const RouteParams& route = layer.route();
    for (int b = 0; b < batch; ++b) {
        for (const std::vector<float>* source : sources) {
            const std::size_t input_size = source->size() / batch;
            const std::size_t part = input_size / route.groups;
            const float* begin = source->data() + b * input_size + part * route.group_id;
            output = std::copy(begin, begin + part, output);
        }
    }
}

void route_backward(const Layer& layer, const std::vector<std::vector<float>*>& source_deltas, int batch,
                    const float* delta) {
    const RouteParams& route = layer.route();
    for (int b = 0; b < batch; ++b) {
        for (std::vector<float>* source : source_deltas) {
            const std::size_t input_size = source->size() / batch;
            const std::size_t part = input_size / route.groups;
            float* target = source->data() + b * input_size + part * route.group_id;
            for (std::size_t i = 0; i < part; ++i) target[i] += *delta++;
        }
    }
}

void reorg_backward(const Layer& layer, int batch, const float* delta, float* input_delta) {
    // The forward permutation, applied to indexes: where each output value came from.
    const std::size_t size = layer.input.size();
    std::vector<std::size_t> position(size);
    for (std::size_t i = 0; i < size; ++i) position[i] = i;
    std::vector<std::size_t> source(size);
    detail::darknet_reorg(layer, position.data(), source.data(), "reorg");
    for (int b = 0; b < batch; ++b) {
        const float* d = delta + b * size;
        float* target = input_delta + b * size;
        for (std::size_t i = 0; i < size; ++i) target[source[i]] += d[i];
    }
}

void upsample_backward(const Layer& layer, int batch, const float* delta, float* input_delta) {
    const int stride = layer.upsample().stride;
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    for (int b = 0; b < batch; ++b) {
        for (int c = 0; c < out.c; ++c) {
            for (int y = 0; y < out.h; ++y) {
                const float* source = delta + ((static_cast<std::size_t>(b) * out.c + c) * out.h + y) * out.w;
                float* target =
                    input_delta + ((static_cast<std::size_t>(b) * in.c + c) * in.h + y / stride) * in.w;
                for (int x = 0; x < out.w; ++x) target[x / stride] += source[x];
            }
        }
    }
}

void shortcut_backward(const Layer& layer, int batch, const float* output, float* delta, float* input_delta,
                       float* from_delta, const TensorShape& from_shape) {
    const TensorShape& out = layer.output;
    apply_activation_gradient(output, out.size() * batch, layer.shortcut().activation, delta);
    for (std::size_t i = 0; i < out.size() * batch; ++i) input_delta[i] += delta[i];
    for (int b = 0; b < batch; ++b) {
        const float* d = delta + b * out.size();
        float* target = from_delta + b * from_shape.size();
        core::for_each_shortcut_pair(out, from_shape, [&](std::size_t out_index, std::size_t from_index) {
            target[from_index] += d[out_index];
        });
    }
}

}  // namespace fpgacnn::train

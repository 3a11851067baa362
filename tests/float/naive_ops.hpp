// Straightforward, obviously-correct versions of darknet's layers (direct loops, no im2col, no
// BLAS) and small layer builders, for checking the optimised float ops against.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::test {

inline std::vector<float> random_values(std::size_t count, unsigned seed, float low = -1.0f,
                                        float high = 1.0f) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float& v : values) v = distribution(generator);
    return values;
}

inline Layer make_conv_layer(int index, TensorShape input, int filters, int size, int stride, int pad,
                             Activation activation, unsigned seed) {
    Layer layer;
    layer.type = LayerType::Convolutional;
    layer.index = index;
    layer.input = input;
    layer.output = {filters, (input.h + 2 * pad - size) / stride + 1,
                    (input.w + 2 * pad - size) / stride + 1};
    ConvParams conv;
    conv.filters = filters;
    conv.size = size;
    conv.stride = stride;
    conv.pad = pad;
    conv.activation = activation;
    conv.weights =
        random_values(static_cast<std::size_t>(filters) * input.c * size * size, seed, -0.5f, 0.5f);
    conv.biases = random_values(static_cast<std::size_t>(filters), seed + 1, -0.5f, 0.5f);
    layer.params = conv;
    return layer;
}

inline Layer make_maxpool_layer(int index, TensorShape input, int size, int stride) {
    Layer layer;
    layer.type = LayerType::MaxPool;
    layer.index = index;
    layer.input = input;
    MaxPoolParams pool;
    pool.size = size;
    pool.stride = stride;
    pool.padding = size - 1;  // darknet's default
    layer.output = {input.c, (input.h + pool.padding - size) / stride + 1,
                    (input.w + pool.padding - size) / stride + 1};
    layer.params = pool;
    return layer;
}

inline Layer make_region_layer(int index, TensorShape input, int num, int classes, bool softmax) {
    Layer layer;
    layer.type = LayerType::Region;
    layer.index = index;
    layer.input = input;
    layer.output = input;
    RegionParams region;
    region.num = num;
    region.classes = classes;
    region.coords = 4;
    region.softmax = softmax;
    region.anchors.assign(2 * static_cast<std::size_t>(num), 1.0f);
    layer.params = region;
    return layer;
}

inline float at(const std::vector<float>& t, const TensorShape& s, int c, int y, int x) {
    return t[(static_cast<std::size_t>(c) * s.h + y) * s.w + x];
}

/// Direct convolution: zero padding, bias, then leaky (0.1 slope) or linear; accumulates in double.
inline std::vector<float> naive_conv(const Layer& layer, const std::vector<float>& input) {
    const ConvParams& conv = layer.conv();
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    std::vector<float> output(out.size());
    for (int m = 0; m < out.c; ++m) {
        for (int oy = 0; oy < out.h; ++oy) {
            for (int ox = 0; ox < out.w; ++ox) {
                double sum = 0;
                for (int c = 0; c < in.c; ++c) {
                    for (int ky = 0; ky < conv.size; ++ky) {
                        for (int kx = 0; kx < conv.size; ++kx) {
                            const int y = oy * conv.stride + ky - conv.pad;
                            const int x = ox * conv.stride + kx - conv.pad;
                            if (y < 0 || y >= in.h || x < 0 || x >= in.w) continue;
                            const std::size_t w_index =
                                ((static_cast<std::size_t>(m) * in.c + c) * conv.size + ky) * conv.size + kx;
                            sum += static_cast<double>(conv.weights[w_index]) * at(input, in, c, y, x);
                        }
                    }
                }
                float value = static_cast<float>(sum) + conv.biases[m];
                if (conv.activation == Activation::Leaky && value <= 0) value *= 0.1f;
                output[(static_cast<std::size_t>(m) * out.h + oy) * out.w + ox] = value;
            }
        }
    }
    return output;
}

/// Direct maxpool: window at (i*stride - padding/2), max over the taps inside the image.
inline std::vector<float> naive_maxpool(const Layer& layer, const std::vector<float>& input) {
    const MaxPoolParams& pool = layer.maxpool();
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    std::vector<float> output(out.size());
    for (int c = 0; c < out.c; ++c) {
        for (int oy = 0; oy < out.h; ++oy) {
            for (int ox = 0; ox < out.w; ++ox) {
                float best = -FLT_MAX;
                for (int ky = 0; ky < pool.size; ++ky) {
                    for (int kx = 0; kx < pool.size; ++kx) {
                        const int y = oy * pool.stride - pool.padding / 2 + ky;
                        const int x = ox * pool.stride - pool.padding / 2 + kx;
                        if (y < 0 || y >= in.h || x < 0 || x >= in.w) continue;
                        best = std::max(best, at(input, in, c, y, x));
                    }
                }
                output[(static_cast<std::size_t>(c) * out.h + oy) * out.w + ox] = best;
            }
        }
    }
    return output;
}

/// Region activation written per cell: logistic x, y, objectness; softmax (or logistic) classes.
inline std::vector<float> naive_region(const RegionParams& region, const TensorShape& shape,
                                       std::vector<float> data) {
    const std::size_t plane = static_cast<std::size_t>(shape.h) * shape.w;
    const std::size_t entries = static_cast<std::size_t>(region.coords + region.classes + 1);
    auto logistic = [](float x) {
        return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x))));
    };
    for (int n = 0; n < region.num; ++n) {
        for (std::size_t cell = 0; cell < plane; ++cell) {
            auto value = [&](std::size_t entry) -> float& {
                return data[(n * entries + entry) * plane + cell];
            };
            value(0) = logistic(value(0));
            value(1) = logistic(value(1));
            value(region.coords) = logistic(value(region.coords));
            const std::size_t first_class = region.coords + 1;
            if (!region.softmax) {
                for (int k = 0; k < region.classes; ++k)
                    value(first_class + k) = logistic(value(first_class + k));
                continue;
            }
            double largest = -1e30, sum = 0;
            for (int k = 0; k < region.classes; ++k)
                largest = std::max<double>(largest, value(first_class + k));
            for (int k = 0; k < region.classes; ++k) sum += std::exp(value(first_class + k) - largest);
            for (int k = 0; k < region.classes; ++k) {
                value(first_class + k) = static_cast<float>(std::exp(value(first_class + k) - largest) / sum);
            }
        }
    }
    return data;
}

/// Largest |a - b| / max(1, |b|) over two equally long vectors.
inline double max_relative_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const double scale = std::max(1.0, std::fabs(static_cast<double>(b[i])));
        worst = std::max(worst, std::fabs(static_cast<double>(a[i]) - b[i]) / scale);
    }
    return worst;
}

}  // namespace fpgacnn::test

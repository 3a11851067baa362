#include "train/conv_train.hpp"

#include <cblas.h>

#include <algorithm>

#include "core/thread_pool.hpp"
#include "float/darknet_math.hpp"
#include "float/im2col.hpp"
#include "float/pooled_sgemm.hpp"
#include "train/activation_gradient.hpp"

namespace fpgacnn::train {

namespace {

bool input_is_column_matrix(const ConvParams& conv) {
    return conv.size == 1 && conv.stride == 1 && conv.pad == 0;
}

int depth_of(const Layer& layer) { return layer.input.c * layer.conv().size * layer.conv().size; }

detail::Im2colGeometry geometry_of(const Layer& layer) {
    const ConvParams& conv = layer.conv();
    return {layer.input.c, layer.input.h, layer.input.w, conv.size, conv.stride, conv.pad};
}

/// darknet's col2im_cpu: adds each column value to the image pixel it was read from (padding taps
/// dropped).
void col2im_add(const detail::Im2colGeometry& g, const float* columns, float* image) {
    const int out_h = g.out_height();
    const int out_w = g.out_width();
    const int rows = g.channels * g.ksize * g.ksize;
    for (int r = 0; r < rows; ++r) {
        const int kw = r % g.ksize;
        const int kh = (r / g.ksize) % g.ksize;
        const int channel = r / g.ksize / g.ksize;
        float* plane = image + static_cast<std::size_t>(channel) * g.height * g.width;
        const float* column_row = columns + static_cast<std::size_t>(r) * out_h * out_w;
        for (int h = 0; h < out_h; ++h) {
            const int y = kh - g.pad + h * g.stride;
            if (y < 0 || y >= g.height) continue;
            for (int w = 0; w < out_w; ++w) {
                const int x = kw - g.pad + w * g.stride;
                if (x < 0 || x >= g.width) continue;
                plane[static_cast<std::size_t>(y) * g.width + x] +=
                    column_row[static_cast<std::size_t>(h) * out_w + w];
            }
        }
    }
}

// Below this many multiply-adds a backward sgemm runs on the calling thread alone.
constexpr std::size_t kMinSplitWork = std::size_t(1) << 20;

/// Runs part(first, last) over [0, count) split into one range per pool thread, or at once when the
/// sgemm is small. Each part is an sgemm of its own rows: every value is the same dot product.
template <typename Part>
void split_rows(int count, std::size_t work, const Part& part) {
    ThreadPool& pool = ThreadPool::shared();
    const int parts = work < kMinSplitWork ? 1 : std::min(pool.size(), count);
    if (parts <= 1) {
        part(0, count);
        return;
    }
    pool.parallel_for(static_cast<std::size_t>(parts), [&](std::size_t p) {
        const int index = static_cast<int>(p);
        part(count * index / parts, count * (index + 1) / parts);
    });
}

/// weight_updates (filters x depth) += delta (filters x pixels) * columns (depth x pixels)^T, split by
/// weight columns (rows of `columns`).
void add_weight_gradient(int filters, int depth, int pixels, const float* delta, const float* columns,
                         float* weight_updates) {
    const std::size_t work = static_cast<std::size_t>(filters) * depth * pixels;
    split_rows(depth, work, [&](int first, int last) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, filters, last - first, pixels, 1.0f, delta,
                    pixels, columns + static_cast<std::size_t>(first) * pixels, pixels, 1.0f,
                    weight_updates + first, depth);
    });
}

/// out (depth x pixels) = beta * out + weights (filters x depth)^T * delta (filters x pixels), split by
/// rows of `out`.
void weights_transposed_times_delta(int filters, int depth, int pixels, const float* weights,
                                    const float* delta, float beta, float* out) {
    const std::size_t work = static_cast<std::size_t>(filters) * depth * pixels;
    split_rows(depth, work, [&](int first, int last) {
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, last - first, pixels, filters, 1.0f,
                    weights + first, depth, delta, pixels, beta,
                    out + static_cast<std::size_t>(first) * pixels, pixels);
    });
}

}  // namespace

std::size_t conv_train_workspace_floats(const Layer& layer) {
    if (input_is_column_matrix(layer.conv())) return 0;
    return static_cast<std::size_t>(depth_of(layer)) * layer.output.h * layer.output.w;
}

ConvTrainState make_conv_train_state(const Layer& layer, bool adam) {
    const ConvParams& conv = layer.conv();
    ConvTrainState state;
    ConvGradients& g = state.gradients;
    g.weight_updates.assign(conv.weights.size(), 0.0f);
    g.bias_updates.assign(conv.biases.size(), 0.0f);
    if (conv.batch_normalize) g.scale_updates.assign(conv.bn_scales.size(), 0.0f);
    if (adam) {
        for (auto* moment : {&g.weight_m, &g.weight_v}) moment->assign(g.weight_updates.size(), 0.0f);
        for (auto* moment : {&g.bias_m, &g.bias_v}) moment->assign(g.bias_updates.size(), 0.0f);
        for (auto* moment : {&g.scale_m, &g.scale_v}) moment->assign(g.scale_updates.size(), 0.0f);
    }
    return state;
}

void conv_forward_train(Layer& layer, int batch, const float* input, float* output, float* workspace,
                        ConvTrainState& state) {
    ConvParams& conv = layer.conv();
    const int filters = conv.filters;
    const int depth = depth_of(layer);
    const int pixels = layer.output.h * layer.output.w;
    const std::size_t in_size = layer.input.size();
    const std::size_t out_size = layer.output.size();
    for (int b = 0; b < batch; ++b) {
        const float* image = input + b * in_size;
        const float* columns = image;
        if (!input_is_column_matrix(conv)) {
            detail::im2col(geometry_of(layer), image, 0, layer.output.h, workspace);
            columns = workspace;
        }
        detail::pooled_sgemm(filters, pixels, depth, conv.weights.data(), columns, pixels,
                             output + b * out_size, pixels);
    }
    if (conv.batch_normalize) {
        const BatchNormParams params{conv.bn_scales, conv.biases, conv.bn_mean, conv.bn_variance};
        batchnorm_forward_train({batch, filters, pixels}, params, output, state.batchnorm);
    } else {
        for (int b = 0; b < batch; ++b) {
            for (int m = 0; m < filters; ++m) {
                float* plane = output + b * out_size + static_cast<std::size_t>(m) * pixels;
                for (int k = 0; k < pixels; ++k) plane[k] += conv.biases[m];
            }
        }
    }
    const std::size_t count = out_size * batch;
    if (conv.activation != Activation::Linear) {
        for (std::size_t i = 0; i < count; ++i)
            output[i] = detail::darknet_activate(output[i], conv.activation);
    }
}

void conv_backward_to_conv_output(const Layer& layer, int batch, const float* output, float* delta,
                                  ConvTrainState& state) {
    const ConvParams& conv = layer.conv();
    const int pixels = layer.output.h * layer.output.w;
    apply_activation_gradient(output, layer.output.size() * batch, conv.activation, delta);
    ConvGradients& gradients = state.gradients;
    if (conv.batch_normalize) {
        batchnorm_backward({batch, conv.filters, pixels}, conv.bn_scales, state.batchnorm, delta,
                           gradients.bias_updates, gradients.scale_updates);
    } else {
        add_bias_gradient(delta, batch, conv.filters, pixels, gradients.bias_updates);
    }
}

void conv_backward(const Layer& layer, int batch, const float* input, const float* output, float* delta,
                   float* input_delta, float* workspace, ConvTrainState& state) {
    conv_backward_to_conv_output(layer, batch, output, delta, state);
    conv_backward_gradients(layer, batch, input, delta, input_delta, workspace, state.gradients);
}

void conv_backward_gradients(const Layer& layer, int batch, const float* input, const float* delta,
                             float* input_delta, float* workspace, ConvGradients& gradients) {
    const ConvParams& conv = layer.conv();
    const int filters = conv.filters;
    const int depth = depth_of(layer);
    const int pixels = layer.output.h * layer.output.w;
    const std::size_t in_size = layer.input.size();
    const std::size_t out_size = layer.output.size();
    detail::single_threaded_openblas();
    const detail::Im2colGeometry geometry = geometry_of(layer);
    for (int b = 0; b < batch; ++b) {
        const float* image = input + b * in_size;
        const float* delta_b = delta + b * out_size;
        const float* columns = image;
        if (!input_is_column_matrix(conv)) {
            detail::im2col(geometry, image, 0, layer.output.h, workspace);
            columns = workspace;
        }
        add_weight_gradient(filters, depth, pixels, delta_b, columns, gradients.weight_updates.data());
        if (input_delta == nullptr) continue;
        float* image_delta = input_delta + b * in_size;
        if (input_is_column_matrix(conv)) {
            // Added, not overwritten: darknet's beta = 0 here drops what later layers (a route or
            // shortcut reading the same input) already sent back (docs/darknet-semantics.md).
            weights_transposed_times_delta(filters, depth, pixels, conv.weights.data(), delta_b, 1.0f,
                                           image_delta);
        } else {
            weights_transposed_times_delta(filters, depth, pixels, conv.weights.data(), delta_b, 0.0f,
                                           workspace);
            col2im_add(geometry, workspace, image_delta);
        }
    }
}

}  // namespace fpgacnn::train

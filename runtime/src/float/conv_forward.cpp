// Convolution as darknet's CPU path computes it: im2col, sgemm, then bias and activation.
#include <algorithm>
#include <cstddef>

#include "core/thread_pool.hpp"
#include "float/bias_activation.hpp"
#include "float/im2col.hpp"
#include "float/layer_checks.hpp"
#include "float/pooled_sgemm.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

namespace {

// The early layers' column matrices are large (yolov2 at 416: 50 MB for layer 2). They are
// unrolled in bands of output rows of at most this many floats (8 MB), one sgemm per band: the
// workspace stays small and each band is still in the last-level cache when the sgemm reads
// it. Each output value is the same dot product either way.
constexpr std::size_t kBandFloats = std::size_t(1) << 21;

// A 1x1, stride-1, unpadded convolution's input already is its column matrix.
bool input_is_column_matrix(const ConvParams& conv) {
    return conv.size == 1 && conv.stride == 1 && conv.pad == 0;
}

int depth_of(const Layer& layer) { return layer.input.c * layer.conv().size * layer.conv().size; }

int rows_per_band(const Layer& layer) {
    const std::size_t floats_per_row = static_cast<std::size_t>(depth_of(layer)) * layer.output.w;
    const std::size_t rows = kBandFloats / std::max<std::size_t>(floats_per_row, 1);
    return static_cast<int>(std::clamp<std::size_t>(rows, 1, static_cast<std::size_t>(layer.output.h)));
}

// darknet adds the bias and activates in two passes over the output; one pass computes the
// same values while the sgemm result is still in cache. `band` points at filter 0's first
// value; filter m's values start plane_size further per filter.
void bias_and_activate(const ConvParams& conv, float* band, std::size_t count, std::size_t plane_size) {
    const auto filters = [&](std::size_t begin, std::size_t end) {
        for (std::size_t m = begin; m < end; ++m) {
            detail::add_bias_and_activate(band + m * plane_size, count, conv.biases[m], conv.activation);
        }
    };
    ThreadPool::shared().parallel_for_ranges(static_cast<std::size_t>(conv.filters), count, filters);
}

}  // namespace

std::size_t im2col_workspace_floats(const Layer& layer) {
    if (layer.type != LayerType::Convolutional || input_is_column_matrix(layer.conv())) return 0;
    return static_cast<std::size_t>(depth_of(layer)) * rows_per_band(layer) * layer.output.w;
}

void conv_forward(const Layer& layer, const float* input, float* output, float* workspace) {
    detail::require_conv_ready(layer);
    const ConvParams& conv = layer.conv();
    const int filters = conv.filters;   // M
    const int depth = depth_of(layer);  // K
    const int pixels = layer.output.h * layer.output.w;
    const float* weights = conv.weights.data();

    if (input_is_column_matrix(conv)) {
        detail::pooled_sgemm(filters, pixels, depth, weights, input, pixels, output, pixels);
        bias_and_activate(conv, output, static_cast<std::size_t>(pixels), static_cast<std::size_t>(pixels));
        return;
    }
    const detail::Im2colGeometry geometry{layer.input.c, layer.input.h, layer.input.w,
                                          conv.size,     conv.stride,   conv.pad};
    const int band_rows = rows_per_band(layer);
    for (int first_row = 0; first_row < layer.output.h; first_row += band_rows) {
        const int rows = std::min(band_rows, layer.output.h - first_row);
        const int band_pixels = rows * layer.output.w;
        float* band_output = output + static_cast<std::size_t>(first_row) * layer.output.w;
        detail::im2col(geometry, input, first_row, rows, workspace);
        detail::pooled_sgemm(filters, band_pixels, depth, weights, workspace, band_pixels, band_output,
                             pixels);
        bias_and_activate(conv, band_output, static_cast<std::size_t>(band_pixels),
                          static_cast<std::size_t>(pixels));
    }
}

}  // namespace fpgacnn

// darknet's forward_maxpool_layer: the window starts padding/2 pixels before the output pixel's
// stride position; taps outside the image are skipped (not zeros), so a window hanging over the
// right/bottom edge takes the max of the pixels it does cover.
#include <algorithm>
#include <cfloat>
#include <cstddef>

#include "core/thread_pool.hpp"
#include "float/layer_checks.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

namespace {

// darknet's update `max = (val > max) ? val : max`, kept literally so ties and signed zeros
// resolve to the same tap.
inline float take_larger(float best, float value) { return value > best ? value : best; }

void pool_plane(const MaxPoolParams& pool, const TensorShape& in, const TensorShape& out, const float* source,
                float* target) {
    const int offset = -pool.padding / 2;
    for (int i = 0; i < out.h; ++i) {
        const int row0 = offset + i * pool.stride;
        const int row_begin = std::max(row0, 0);
        const int row_end = std::min(row0 + pool.size, in.h);
        const float* top = source + static_cast<std::size_t>(std::max(row_begin, 0)) * in.w;
        const bool two_full_rows = pool.size == 2 && row_end - row_begin == 2;
        for (int j = 0; j < out.w; ++j) {
            const int col0 = offset + j * pool.stride;
            const int col_begin = std::max(col0, 0);
            const int col_end = std::min(col0 + pool.size, in.w);
            float best = -FLT_MAX;
            if (two_full_rows && col_end - col_begin == 2) {
                // The common 2x2 window fully inside the image: same taps, same order, no bounds.
                best = take_larger(best, top[col_begin]);
                best = take_larger(best, top[col_begin + 1]);
                best = take_larger(best, top[in.w + col_begin]);
                best = take_larger(best, top[in.w + col_begin + 1]);
            } else {
                for (int r = row_begin; r < row_end; ++r) {
                    const float* line = source + static_cast<std::size_t>(r) * in.w;
                    for (int q = col_begin; q < col_end; ++q) best = take_larger(best, line[q]);
                }
            }
            target[static_cast<std::size_t>(i) * out.w + j] = best;
        }
    }
}

}  // namespace

void maxpool_forward(const Layer& layer, const float* input, float* output) {
    detail::require_layer_type(layer, LayerType::MaxPool, "maxpool_forward");
    const MaxPoolParams& pool = layer.maxpool();
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    if (out.c != in.c || pool.size < 1 || pool.stride < 1 || pool.padding < 0) {
        throw Error(detail::describe_layer(layer) + ": inconsistent maxpool shape or parameters");
    }
    const std::size_t in_plane = static_cast<std::size_t>(in.h) * in.w;
    const std::size_t out_plane = static_cast<std::size_t>(out.h) * out.w;
    ThreadPool::shared().parallel_for_ranges(
        static_cast<std::size_t>(in.c), in_plane, [&](std::size_t begin, std::size_t end) {
            for (std::size_t c = begin; c < end; ++c) {
                pool_plane(pool, in, out, input + c * in_plane, output + c * out_plane);
            }
        });
}

}  // namespace fpgacnn

// darknet's forward_maxpool_layer on int16: the window starts padding/2 pixels before the
// output pixel's stride position and taps outside the image are skipped (not zeros). A max of
// values at one exponent is exact, so the exponent is unchanged. Channels run in parallel; the
// common 2x2 windows (stride 2, and YOLOv3-tiny's stride 1) have SIMD row kernels.
#include <algorithm>
#include <cstddef>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/thread_pool.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

namespace {

// out[j] = max(a[2j], a[2j+1], b[2j], b[2j+1]) for j < n.
void max_2x2_row(const int16_t* a, const int16_t* b, int16_t* out, int n) {
    int j = 0;
#if defined(__SSE2__)
    for (; j + 8 <= n; j += 8) {
        const __m128i a0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * j));
        const __m128i a1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2 * j + 8));
        const __m128i b0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * j));
        const __m128i b1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2 * j + 8));
        const __m128i v0 = _mm_max_epi16(a0, b0);
        const __m128i v1 = _mm_max_epi16(a1, b1);
        // Max of each horizontal pair lands in the low half of its 32-bit lane; sign-extend and pack.
        const __m128i h0 = _mm_max_epi16(v0, _mm_srli_epi32(v0, 16));
        const __m128i h1 = _mm_max_epi16(v1, _mm_srli_epi32(v1, 16));
        const __m128i packed = _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(h0, 16), 16),
                                               _mm_srai_epi32(_mm_slli_epi32(h1, 16), 16));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), packed);
    }
#endif
    for (; j < n; ++j) out[j] = std::max(std::max(a[2 * j], a[2 * j + 1]), std::max(b[2 * j], b[2 * j + 1]));
}

// out[j] = max(a[j], a[j+1], b[j], b[j+1]) for j < n (the 2x2 stride-1 window of YOLOv3-tiny's
// last maxpool, fully inside the row).
void max_2x2_stride1_row(const int16_t* a, const int16_t* b, int16_t* out, int n) {
    int j = 0;
#if defined(__SSE2__)
    for (; j + 8 <= n; j += 8) {
        const auto load = [](const int16_t* p) {
            return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        };
        const __m128i left = _mm_max_epi16(load(a + j), load(b + j));
        const __m128i right = _mm_max_epi16(load(a + j + 1), load(b + j + 1));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), _mm_max_epi16(left, right));
    }
#endif
    for (; j < n; ++j) out[j] = std::max(std::max(a[j], a[j + 1]), std::max(b[j], b[j + 1]));
}

void maxpool_channel(const MaxPoolParams& pool, const TensorShape& in, const TensorShape& out,
                     const int16_t* source, int16_t* target) {
    const int offset = -pool.padding / 2;
    for (int i = 0; i < out.h; ++i) {
        const int row0 = offset + i * pool.stride;
        const int row_begin = std::max(row0, 0);
        const int row_end = std::min(row0 + pool.size, in.h);
        int16_t* line_out = target + static_cast<std::size_t>(i) * out.w;
        int j = 0;
        if (pool.size == 2 && pool.stride == 2 && offset == 0 && row_end > row_begin) {
            // Windows fully inside the row; a single remaining row (bottom edge) pairs with itself.
            const int16_t* a = source + static_cast<std::size_t>(row_begin) * in.w;
            const int16_t* b = source + static_cast<std::size_t>(row_end - 1) * in.w;
            j = std::min(out.w, in.w / 2);
            max_2x2_row(a, b, line_out, j);
        } else if (pool.size == 2 && pool.stride == 1 && offset == 0 && row_end > row_begin) {
            // The same with overlapping windows; the last column's window (past the edge) below.
            const int16_t* a = source + static_cast<std::size_t>(row_begin) * in.w;
            const int16_t* b = source + static_cast<std::size_t>(row_end - 1) * in.w;
            j = std::min(out.w, in.w - 1);
            max_2x2_stride1_row(a, b, line_out, j);
        }
        for (; j < out.w; ++j) {
            const int col0 = offset + j * pool.stride;
            const int col_begin = std::max(col0, 0);
            const int col_end = std::min(col0 + pool.size, in.w);
            // A window entirely outside the image (impossible for darknet's shapes) gives the int16
            // minimum, as darknet's -FLT_MAX would.
            int16_t best = -32768;
            for (int r = row_begin; r < row_end; ++r) {
                const int16_t* line = source + static_cast<std::size_t>(r) * in.w;
                for (int q = col_begin; q < col_end; ++q) best = std::max(best, line[q]);
            }
            line_out[j] = best;
        }
    }
}

}  // namespace

void int16_maxpool(const Layer& layer, const int16_t* input, int16_t* output, ThreadPool* pool) {
    const std::string what = int16_detail::describe_layer(layer);
    if (layer.type != LayerType::MaxPool) throw Error("int16_maxpool called on " + what);
    const MaxPoolParams& params = layer.maxpool();
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    if (out.c != in.c || params.size < 1 || params.stride < 1) {
        throw Error(what + ": inconsistent maxpool shape or parameters");
    }
    const std::size_t in_plane = static_cast<std::size_t>(in.h) * in.w;
    const std::size_t out_plane = static_cast<std::size_t>(out.h) * out.w;
    const auto channel = [&](std::size_t c) {
        maxpool_channel(params, in, out, input + c * in_plane, output + c * out_plane);
    };
    if (pool != nullptr) {
        pool->parallel_for(static_cast<std::size_t>(in.c), channel);
    } else {
        for (int c = 0; c < in.c; ++c) channel(static_cast<std::size_t>(c));
    }
}

}  // namespace fpgacnn

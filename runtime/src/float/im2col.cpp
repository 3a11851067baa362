#include "float/im2col.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "core/thread_pool.hpp"

namespace fpgacnn::detail {

namespace {

// One row of the column matrix: tap (kh, kw) of channel `plane` for the output pixels of
// output rows [first_row, first_row + rows).
// The valid output columns form one contiguous run, so the borders are zero-filled and the
// middle is a memcpy (stride 1) or a strided gather; same values as darknet's per-pixel
// im2col_get_pixel, without its per-pixel bounds test.
void unroll_tap(const Im2colGeometry& g, const float* plane, int kh, int kw, int first_row, int rows,
                float* row) {
    const int out_w = g.out_width();
    const int col_shift = kw - g.pad;
    int w_begin = 0;
    while (w_begin < out_w && col_shift + w_begin * g.stride < 0) ++w_begin;
    int w_end = out_w;
    while (w_end > w_begin && col_shift + (w_end - 1) * g.stride >= g.width) --w_end;

    for (int h = first_row; h < first_row + rows; ++h, row += out_w) {
        const int im_row = kh - g.pad + h * g.stride;
        if (im_row < 0 || im_row >= g.height) {
            std::fill(row, row + out_w, 0.0f);
            continue;
        }
        const float* image_row = plane + static_cast<std::size_t>(im_row) * g.width;
        std::fill(row, row + w_begin, 0.0f);
        if (g.stride == 1) {
            std::memcpy(row + w_begin, image_row + (col_shift + w_begin),
                        static_cast<std::size_t>(w_end - w_begin) * sizeof(float));
        } else {
            for (int w = w_begin; w < w_end; ++w) row[w] = image_row[col_shift + w * g.stride];
        }
        std::fill(row + w_end, row + out_w, 0.0f);
    }
}

}  // namespace

void im2col(const Im2colGeometry& g, const float* image, int first_row, int rows, float* columns) {
    const std::size_t plane_size = static_cast<std::size_t>(g.height) * g.width;
    const std::size_t row_size = static_cast<std::size_t>(rows) * g.out_width();
    const std::size_t taps = static_cast<std::size_t>(g.ksize) * g.ksize;
    const auto column_rows = [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r) {
            const int tap = static_cast<int>(r % taps);
            const float* plane = image + (r / taps) * plane_size;
            unroll_tap(g, plane, tap / g.ksize, tap % g.ksize, first_row, rows, columns + r * row_size);
        }
    };
    ThreadPool::shared().parallel_for_ranges(static_cast<std::size_t>(g.channels) * taps, row_size,
                                             column_rows);
}

}  // namespace fpgacnn::detail

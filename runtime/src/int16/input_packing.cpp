#include "int16/input_packing.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/thread_pool.hpp"
#include "fpgacnn/int16_ops.hpp"

namespace fpgacnn::int16_detail {

InputPacking::InputPacking(const TensorShape& shape, int padding)
    : input(shape),
      pad(padding),
      padded_h(shape.h + 2 * padding),
      padded_w(shape.w + 2 * padding),
      channel_pairs((shape.c + 1) / 2),
      channel_stride(2 * static_cast<std::ptrdiff_t>((shape.c + 1) / 2)) {}

void InputPacking::pack(const int16_t* source, int16_t* packed, ThreadPool* pool, bool fast) const {
#if defined(__x86_64__) || defined(__i386__)
    const bool use_avx2 = fast && int16_isa_supported(Int16Isa::Avx2);
#else
    (void)fast;
#endif
    const std::size_t row_values = static_cast<std::size_t>(padded_w) * channel_stride;
    const std::size_t plane = static_cast<std::size_t>(input.h) * input.w;
    const auto pack_row = [&](std::size_t y) {
        int16_t* row = packed + y * row_values;
        const int iy = static_cast<int>(y) - pad;
        if (iy < 0 || iy >= input.h) {
            std::memset(row, 0, row_values * sizeof(int16_t));
            return;
        }
        // Zero borders (and the odd channel's partner), then scatter each channel's row.
        std::memset(row, 0, static_cast<std::size_t>(pad) * channel_stride * sizeof(int16_t));
        std::memset(row + static_cast<std::size_t>(pad + input.w) * channel_stride, 0,
                    static_cast<std::size_t>(pad) * channel_stride * sizeof(int16_t));
        int16_t* first = row + static_cast<std::size_t>(pad) * channel_stride;
        if (input.c % 2 != 0) {
            for (int x = 0; x < input.w; ++x) first[x * channel_stride + input.c] = 0;
        }
#if defined(__x86_64__) || defined(__i386__)
        if (use_avx2) {
            std::vector<const int16_t*> rows(static_cast<std::size_t>(input.c));
            for (int c = 0; c < input.c; ++c)
                rows[c] = source + c * plane + static_cast<std::size_t>(iy) * input.w;
            pack_row_avx2(rows.data(), input.c, input.w, first, channel_stride);
            return;
        }
#endif
        for (int c = 0; c < input.c; ++c) {
            const int16_t* line = source + c * plane + static_cast<std::size_t>(iy) * input.w;
            int16_t* target = first + c;
            for (int x = 0; x < input.w; ++x) target[x * channel_stride] = line[x];
        }
    };
    if (pool != nullptr) {
        pool->parallel_for(static_cast<std::size_t>(padded_h), pack_row);
    } else {
        for (int y = 0; y < padded_h; ++y) pack_row(static_cast<std::size_t>(y));
    }
}

}  // namespace fpgacnn::int16_detail

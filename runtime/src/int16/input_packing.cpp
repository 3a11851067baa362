#include "int16/input_packing.hpp"

#include <algorithm>
#include <vector>

#include "core/thread_pool.hpp"
#include "fpgacnn/int16_ops.hpp"

namespace fpgacnn::int16_detail {

namespace {

// Packs every padded row, in parallel when there is a pool: the rows above and below the image,
// the side borders and the last group's missing channels hold `zero` (the value 0 in the layout);
// `scatter(iy, first)` writes image row iy from `first`, the row's first unpadded pixel.
template <typename Element, typename Scatter>
void pack_rows(const InputPacking& p, Element* packed, Element zero, ThreadPool* pool, Scatter scatter) {
    const std::size_t row_values = static_cast<std::size_t>(p.padded_w) * p.channel_stride;
    const std::size_t border = static_cast<std::size_t>(p.pad) * p.channel_stride;
    const auto pack_row = [&](std::size_t y) {
        Element* row = packed + y * row_values;
        const int iy = static_cast<int>(y) - p.pad;
        if (iy < 0 || iy >= p.input.h) {
            std::fill(row, row + row_values, zero);
            return;
        }
        if (p.input.c == p.channel_stride) {
            std::fill(row, row + border, zero);
            std::fill(row + row_values - border, row + row_values, zero);
        } else {
            // One fill of the whole row: a fill per pixel of its missing channels cost more.
            std::fill(row, row + row_values, zero);
        }
        scatter(iy, row + border);
    };
    if (pool != nullptr) {
        pool->parallel_for(static_cast<std::size_t>(p.padded_h), pack_row);
    } else {
        for (int y = 0; y < p.padded_h; ++y) pack_row(static_cast<std::size_t>(y));
    }
}

// Row iy of every channel of the CHW `source`.
std::vector<const int16_t*> channel_rows(const InputPacking& p, const int16_t* source, int iy) {
    const std::size_t plane = static_cast<std::size_t>(p.input.h) * p.input.w;
    std::vector<const int16_t*> rows(static_cast<std::size_t>(p.input.c));
    for (int c = 0; c < p.input.c; ++c)
        rows[c] = source + c * plane + static_cast<std::size_t>(iy) * p.input.w;
    return rows;
}

}  // namespace

InputPacking::InputPacking(const TensorShape& shape, int padding, int channels_per_group)
    : input(shape),
      pad(padding),
      padded_h(shape.h + 2 * padding),
      padded_w(shape.w + 2 * padding),
      group(channels_per_group),
      channel_groups((shape.c + channels_per_group - 1) / channels_per_group),
      channel_stride(static_cast<std::ptrdiff_t>(channels_per_group) *
                     ((shape.c + channels_per_group - 1) / channels_per_group)) {}

void InputPacking::pack(const int16_t* source, int16_t* packed, ThreadPool* pool, bool fast) const {
#if defined(__x86_64__) || defined(__i386__)
    const bool use_avx2 = fast && int16_isa_supported(Int16Isa::Avx2);
#else
    (void)fast;
#endif
    pack_rows(*this, packed, int16_t{0}, pool, [&](int iy, int16_t* first) {
        const std::vector<const int16_t*> rows = channel_rows(*this, source, iy);
#if defined(__x86_64__) || defined(__i386__)
        if (use_avx2) {
            pack_row_avx2(rows.data(), input.c, input.w, first, channel_stride);
            return;
        }
#endif
        for (int c = 0; c < input.c; ++c) {
            for (int x = 0; x < input.w; ++x) first[x * channel_stride + c] = rows[c][x];
        }
    });
}

#if defined(__x86_64__) || defined(__i386__)
void InputPacking::pack(const int16_t* source, uint8_t* packed, ThreadPool* pool) const {
    pack_rows(*this, packed, uint8_t{128}, pool, [&](int iy, uint8_t* first) {
        pack_row_u8_avx512(channel_rows(*this, source, iy).data(), input.c, input.w, first, channel_stride);
    });
}
#endif

}  // namespace fpgacnn::int16_detail

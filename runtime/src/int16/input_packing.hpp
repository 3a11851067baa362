// The conv input layouts of the packed kernels (see conv_kernels.hpp): padded, channel groups
// interleaved per pixel; int16 pairs, or the 8-bit layout's bytes x + 128 in quads. Packed once
// per run, in parallel over padded rows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fpgacnn/network.hpp"

namespace fpgacnn {

class ThreadPool;

namespace int16_detail {

struct InputPacking {
    TensorShape input;
    int pad = 0;
    int padded_h = 0;
    int padded_w = 0;
    int group = 2;  // channels per 32-bit word: 2 (int16) or 4 (the 8-bit layout)
    int channel_groups = 0;
    std::ptrdiff_t channel_stride = 0;  // elements per packed pixel

    InputPacking() = default;
    InputPacking(const TensorShape& shape, int padding, int channels_per_group);

    /// Elements of the packed input.
    std::size_t packed_size() const {
        return static_cast<std::size_t>(padded_h) * padded_w * static_cast<std::size_t>(channel_stride);
    }

    /// CHW `source` -> `packed` (packed_size() int16). pool may be null. `fast` allows the
    /// AVX2 row (only when the CPU has it); the bytes are the same either way. Group 2 only.
    void pack(const int16_t* source, int16_t* packed, ThreadPool* pool, bool fast) const;
#if defined(__x86_64__) || defined(__i386__)
    /// The 8-bit layout (group 4): CHW `source`, every value in [-128, 127], -> `packed`
    /// (packed_size() bytes), each value stored as the byte x + 128. AVX-512 (F + BW) only: the
    /// layout's one user is the AVX-512 VNNI path.
    void pack(const int16_t* source, uint8_t* packed, ThreadPool* pool) const;
#endif
};

#if defined(__x86_64__) || defined(__i386__)
/// One image row: channel_rows[c] points at row y of channel c; writes pixels [0, width) of the
/// packed row starting at `first` (the first unpadded pixel).
void pack_row_avx2(const int16_t* const* channel_rows, int channels, int width, int16_t* first,
                   std::ptrdiff_t channel_stride);
/// The same row in the 8-bit layout.
void pack_row_u8_avx512(const int16_t* const* channel_rows, int channels, int width, uint8_t* first,
                        std::ptrdiff_t channel_stride);
#endif

}  // namespace int16_detail
}  // namespace fpgacnn

// The conv input layout of the packed kernels (see conv_kernels.hpp): zero-padded, channel pairs
// interleaved per pixel. Packed once per run, in parallel over padded rows.
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
    int channel_pairs = 0;
    std::ptrdiff_t channel_stride = 0;  // int16 per packed pixel

    InputPacking() = default;
    InputPacking(const TensorShape& shape, int padding);

    std::size_t packed_size() const {
        return static_cast<std::size_t>(padded_h) * padded_w * static_cast<std::size_t>(channel_stride);
    }

    /// CHW `source` -> `packed` (packed_size() int16). pool may be null. `fast` allows the
    /// AVX2 row (only when the CPU has it); the bytes are the same either way.
    void pack(const int16_t* source, int16_t* packed, ThreadPool* pool, bool fast) const;
};

#if defined(__x86_64__) || defined(__i386__)
/// One image row: channel_rows[c] points at row y of channel c; writes pixels [0, width) of the
/// packed row starting at `first` (the first unpadded pixel).
void pack_row_avx2(const int16_t* const* channel_rows, int channels, int width, int16_t* first,
                   std::ptrdiff_t channel_stride);
#endif

}  // namespace int16_detail
}  // namespace fpgacnn

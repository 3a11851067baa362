// The quantized model file, format version 2 (all integers little-endian):
//   0  char[8] magic "FPGACNNQ"          8  u32 format version     12 u32 arithmetic contract version
//   16 u64 file size in bytes           24 u64 network fingerprint 32 u64 weights fingerprint
//   40 u64 tiling fingerprint (0: none) 48 i32 input exponent      52 u32 layer count
//   56 layer table, 32 bytes per layer: u32 type, i32 input_q, i32 output_q, i32 weight_q, i32 bias_q,
//      u32 weight count, u32 bias count, u32 widths: output_bits | weight_bits << 8 (16 or 8 each;
//      format 1 wrote 0 here and meant 16 for both)
//   then per conv layer in order: int16 weights [filters][channels][size][size], int16 biases [filters]
//   (8-bit weights are stored as int16 values in [-128, 127])
//   last 8 bytes: u64 FNV-1a 64 of every byte before it
#pragma once

#include <cstddef>
#include <cstdint>

namespace fpgacnn::quantized_file {

constexpr char kMagic[8] = {'F', 'P', 'G', 'A', 'C', 'N', 'N', 'Q'};
constexpr std::size_t kHeaderBytes = 56;
constexpr std::size_t kLayerRecordBytes = 32;
constexpr std::size_t kChecksumBytes = 8;
constexpr std::size_t kFileSizeOffset = 16;
/// The first format that records per-layer widths (earlier files are all 16-bit).
constexpr std::uint32_t kFirstFormatWithWidths = 2;
constexpr std::uint32_t kOldestReadableFormat = 1;

inline std::uint32_t pack_widths(int output_bits, int weight_bits) {
    return static_cast<std::uint32_t>(output_bits) | static_cast<std::uint32_t>(weight_bits) << 8;
}

}  // namespace fpgacnn::quantized_file

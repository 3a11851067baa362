// What the packed conv hands to one ISA's micro-kernel driver, and the layouts both agree on.
//
// Two layouts share the same structure, with channels in groups of `group` per 32-bit word:
// - the 16-bit one (every path): int16 values, channel pairs (group 2);
// - the 8-bit one (AVX-512 VNNI, for a layer whose inputs and weights are both 8-bit): input bytes
//   x + 128 (vpdpbusd multiplies unsigned by signed bytes), int8 weights, channel quads (group 4).
//
// Packed input: padded on every side with the value 0 (the byte 128 in the 8-bit layout), channel
// groups interleaved per pixel (HWC with groups): element (y, x, c) of the padded image sits at
// (y * padded_w + x) * channel_stride + c, channel_stride = group * ceil(C / group) (the last
// group's missing channels hold 0 too). So one 32-bit load gives a pixel's group, ready to
// broadcast against weight groups.
//
// Packed weights, per block of `block` output channels: [step][block][group], a step being one
// channel group of one tap, so each step's `block` weight groups are contiguous. Steps run over
// chunks of kChunkGroups channel groups, then taps, then the groups of the chunk: per tap a chunk's
// weights (<= 8 KiB for 32 filters) leave the pixels' inputs in L1 for the next tap. Filters past
// the layer's count and the missing channels of the last group are zero. Biases: int32, already
// aligned (align_bias), zero past the count; in the 8-bit layout minus 128 x the sum of the
// filter's weights (wrapping), which takes back what the + 128 of every input byte added (padding
// included), so the accumulator is the 16-bit layout's modulo 2^32. Any step order gives the same
// bits (wrapping sums).
//
// Work is cut into bands of kBandPixels output pixels (row-major over the output plane) times one
// block of output channels; each band job gathers its accumulators as one int32 row per filter
// ([block][kBandPixels]), then requantizes the rows straight into the CHW output.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/contract.hpp"

// The NEON path exists on both ARM targets: on AArch64 NEON is baseline; on 32-bit ARM (Debian
// armhf's baseline is VFPv3 without NEON) its two files alone are compiled with -mfpu=neon and it
// runs only when the CPU reports NEON (int16_isa_supported).
#if defined(__aarch64__) || defined(__arm__)
#define FPGACNN_INT16_NEON 1
#endif

namespace fpgacnn::int16_detail {

/// A multiple of every micro-kernel's pixel count (4, 6, 12).
constexpr int kBandPixels = 96;
/// Channel groups per chunk of the step order.
constexpr int kChunkGroups = 64;

struct ConvGeometry {
    int out_w = 0;
    int out_pixels = 0;  // out_h * out_w
    int stride = 1;
    int padded_w = 0;
    std::ptrdiff_t channel_stride = 0;  // elements per packed pixel
    int steps = 0;                      // K * K * ceil(C / group)
    // Per step: the element offset of its channel group from the window origin.
    const std::ptrdiff_t* step_offsets = nullptr;
};

/// Input: the packed input's element type; Weight: the packed weights'.
template <typename Input, typename Weight>
struct BandJob {
    const ConvGeometry* geometry = nullptr;
    const Input* packed_input = nullptr;
    const Weight* weights = nullptr;  // this block's packed weights
    const int32_t* biases = nullptr;  // this block's aligned biases
    int first_pixel = 0;
    int pixel_count = 0;  // <= kBandPixels
    int first_filter = 0;
    int filter_count = 0;  // valid filters in this block (<= block width)
    int output_shift = 0;
    uint32_t activation = arith::kActivationLinear;  // arith::kActivation* code
    int output_bits = 16;       // an 8-bit output is the 16-bit one clamped (narrow_to_width)
    int16_t* output = nullptr;  // the layer's whole CHW output
};

using ConvBandJob = BandJob<int16_t, int16_t>;
using ConvBandJobU8 = BandJob<uint8_t, int8_t>;  // the 8-bit layout

/// Output channels per packed block for each path (the widest, where a path has two).
int block_width(Int16Isa isa);

/// Walks output pixels in row-major order and gives each one's window origin (top-left tap) in
/// the packed input, without a division per pixel.
template <typename Input>
class PixelWalker {
public:
    PixelWalker(const ConvGeometry& g, const Input* packed, int first_pixel)
        : g_(g), y_(first_pixel / g.out_w), x_(first_pixel % g.out_w), packed_(packed) {}

    const Input* origin() const {
        const std::ptrdiff_t pixel = static_cast<std::ptrdiff_t>(y_) * g_.stride * g_.padded_w +
                                     static_cast<std::ptrdiff_t>(x_) * g_.stride;
        return packed_ + pixel * g_.channel_stride;
    }

    void next() {
        if (++x_ == g_.out_w) {
            x_ = 0;
            ++y_;
        }
    }

    /// Origins of the `count` pixels of a tile of `tile` pixels; a short tile repeats its last
    /// pixel (those columns are computed but never written out).
    template <int tile>
    void take(const Input* (&origins)[tile], int count) {
        for (int i = 0; i < tile; ++i) {
            origins[i] = origin();
            if (i + 1 < tile && i + 1 < count) next();
        }
        if (count > tile) next();  // on to the next tile's first pixel
    }

private:
    const ConvGeometry& g_;
    int y_;
    int x_;
    const Input* packed_;
};

/// The band loop of the x86 paths, whose micro-kernels store whole vectors per pixel while the
/// epilogue wants one row per filter: `tile(origins, rows)` fills Pixels rows of by_pixel
/// ([pixel][Block]), `transpose(from, from_stride, to, to_stride)` turns Square x Square blocks of
/// it into by_filter ([Block][kBandPixels]), and `finish(row, out, count)` requantizes each
/// filter's row into the CHW output.
template <int Pixels, int Block, int Square, typename Input, typename Weight, typename Tile,
          typename Transpose, typename Finish>
void band_by_pixel(const BandJob<Input, Weight>& job, Tile tile, Transpose transpose, Finish finish) {
    static_assert(kBandPixels % Pixels == 0 && kBandPixels % Square == 0 && Block % Square == 0,
                  "whole tiles and transposes");
    alignas(64) int32_t by_pixel[kBandPixels][Block];
    alignas(64) int32_t by_filter[Block][kBandPixels];
    PixelWalker walker(*job.geometry, job.packed_input, job.first_pixel);
    int computed = 0;
    for (; computed < job.pixel_count; computed += Pixels) {
        const Input* origin[Pixels];
        walker.take(origin, job.pixel_count - computed);
        tile(origin, by_pixel + computed);
    }
    const int columns = (job.pixel_count + Square - 1) / Square * Square;
    for (int p = computed; p < columns; ++p) {
        for (int m = 0; m < Block; ++m) by_pixel[p][m] = 0;  // rows the transpose reads but no tile wrote
    }
    for (int p = 0; p < columns; p += Square) {
        for (int m = 0; m < Block; m += Square)
            transpose(&by_pixel[p][m], Block, &by_filter[m][p], kBandPixels);
    }
    for (int m = 0; m < job.filter_count; ++m) {
        int16_t* out = job.output +
                       static_cast<std::ptrdiff_t>(job.first_filter + m) * job.geometry->out_pixels +
                       job.first_pixel;
        finish(by_filter[m], out, static_cast<std::size_t>(job.pixel_count));
    }
}

/// Clamps requantized int16 outputs to `bits` (16: nothing to do). Saturating to int16 and then to
/// 8 bits equals saturating to 8 bits at once, so every path's requantize followed by this is
/// arith::requantize_to_width.
void narrow_to_width(int16_t* out, std::size_t n, int bits);

void conv_band_scalar(const ConvBandJob& job);
void requantize_scalar(const int32_t* acc, int16_t* out, std::size_t n, int shift, uint32_t activation);

#if defined(__x86_64__) || defined(__i386__)
void conv_band_avx2(const ConvBandJob& job);
void requantize_avx2(const int32_t* acc, int16_t* out, std::size_t n, int shift, uint32_t activation);
void conv_band_avx512vnni(const ConvBandJob& job);
void conv_band_avx512vnni_u8s8(const ConvBandJobU8& job);
/// Blocks of kAvx512NarrowBlock filters, for layers with no more than that many.
constexpr int kAvx512NarrowBlock = 16;
void conv_band_avx512vnni_narrow(const ConvBandJob& job);
void conv_band_avx512vnni_u8s8_narrow(const ConvBandJobU8& job);
/// With the output width's clamp (`bits`) folded in: narrow_to_width was a tenth of an 8-bit conv.
void requantize_avx512(const int32_t* acc, int16_t* out, std::size_t n, int shift, uint32_t activation,
                       int bits = arith::kDataBits);
#endif

#if defined(FPGACNN_INT16_NEON)
void conv_band_neon(const ConvBandJob& job);
void requantize_neon(const int32_t* acc, int16_t* out, std::size_t n, int shift, uint32_t activation);
#endif

}  // namespace fpgacnn::int16_detail

// What the packed conv hands to one ISA's micro-kernel driver, and the layouts both agree on.
//
// Packed input: padded (pad zeros on every side), channel pairs interleaved per pixel (HWC with
// pairs): element (y, x, c) of the padded image sits at (y * padded_w + x) * channel_stride + c,
// channel_stride = 2 * channel_pairs (an odd channel count gets a zero channel). So one 32-bit
// load gives the pair (c, c+1) of a pixel, ready to broadcast against weight pairs.
//
// Packed weights, per block of `block` output channels: [step][block][2], a step being one channel
// pair of one tap, so each step's `block` weight pairs are contiguous. Steps run over chunks of
// kChunkPairs channel pairs, then taps, then the pairs of the chunk: per tap a chunk's weights
// (<= 4 KiB for 16 filters) leave the pixels' inputs in L1 for the next tap. Filters past the
// layer's count and the partner of an odd last channel are zero. Biases: int32, already aligned
// (align_bias), zero past the count. Any step order gives the same bits (wrapping sums).
//
// Work is cut into bands of kBandPixels output pixels (row-major over the output plane) times one
// block of output channels; each band job gathers its accumulators as one int32 row per filter
// ([block][kBandPixels]), then requantizes the rows straight into the CHW output.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fpgacnn/int16_ops.hpp"

// The NEON path exists on both ARM targets: on AArch64 NEON is baseline; on 32-bit ARM (Debian
// armhf's baseline is VFPv3 without NEON) its two files alone are compiled with -mfpu=neon and it
// runs only when the CPU reports NEON (int16_isa_supported).
#if defined(__aarch64__) || defined(__arm__)
#define FPGACNN_INT16_NEON 1
#endif

namespace fpgacnn::int16_detail {

/// A multiple of every micro-kernel's pixel count (4, 6, 12).
constexpr int kBandPixels = 96;
/// Channel pairs per chunk of the step order.
constexpr int kChunkPairs = 64;

struct ConvGeometry {
    int out_w = 0;
    int out_pixels = 0;  // out_h * out_w
    int stride = 1;
    int padded_w = 0;
    std::ptrdiff_t channel_stride = 0;  // int16 per packed pixel
    int steps = 0;                      // K * K * ceil(C / 2)
    // Per step: the int16 offset of its channel pair from the window origin.
    const std::ptrdiff_t* step_offsets = nullptr;
};

struct ConvBandJob {
    const ConvGeometry* geometry = nullptr;
    const int16_t* packed_input = nullptr;
    const int16_t* weights = nullptr;  // this block's packed weights
    const int32_t* biases = nullptr;   // this block's aligned biases
    int first_pixel = 0;
    int pixel_count = 0;  // <= kBandPixels
    int first_filter = 0;
    int filter_count = 0;  // valid filters in this block (<= block width)
    int output_shift = 0;
    bool leaky = false;
    int output_bits = 16;       // an 8-bit output is the 16-bit one clamped (narrow_to_width)
    int16_t* output = nullptr;  // the layer's whole CHW output
};

/// Output channels per packed block for each path.
int block_width(Int16Isa isa);

/// Walks output pixels in row-major order and gives each one's window origin (top-left tap) in
/// the packed input, without a division per pixel.
class PixelWalker {
public:
    PixelWalker(const ConvGeometry& g, const int16_t* packed, int first_pixel)
        : g_(g), y_(first_pixel / g.out_w), x_(first_pixel % g.out_w), packed_(packed) {}

    const int16_t* origin() const {
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
    void take(const int16_t* (&origins)[tile], int count) {
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
    const int16_t* packed_;
};

/// Clamps requantized int16 outputs to `bits` (16: nothing to do). Saturating to int16 and then to
/// 8 bits equals saturating to 8 bits at once, so every path's requantize followed by this is
/// arith::requantize_to_width.
void narrow_to_width(int16_t* out, std::size_t n, int bits);

void conv_band_scalar(const ConvBandJob& job);
void requantize_scalar(const int32_t* acc, int16_t* out, std::size_t n, int shift, bool leaky);

#if defined(__x86_64__) || defined(__i386__)
void conv_band_avx2(const ConvBandJob& job);
void requantize_avx2(const int32_t* acc, int16_t* out, std::size_t n, int shift, bool leaky);
void conv_band_avx512vnni(const ConvBandJob& job);
void requantize_avx512(const int32_t* acc, int16_t* out, std::size_t n, int shift, bool leaky);
#endif

#if defined(FPGACNN_INT16_NEON)
void conv_band_neon(const ConvBandJob& job);
void requantize_neon(const int32_t* acc, int16_t* out, std::size_t n, int shift, bool leaky);
#endif

}  // namespace fpgacnn::int16_detail

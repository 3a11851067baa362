// The NEON micro-kernel (AArch64 and ARMv7): 8 filters x 6 pixels. One step's 16 weights hold
// the 8 filters' pairs; vmlal multiplies them lane by lane by the broadcast input pair
// (x0, x1, x0, x1) and accumulates in int32, keeping even and odd channels apart; a pairwise add
// joins them at the end. Every add wraps modulo 2^32, so the sum equals arith::mac's in any order.
// Tested under qemu-aarch64 and qemu-arm (scripts/cross-test.sh); on 32-bit ARM this file is
// compiled with -mfpu=neon (runtime/CMakeLists.txt) and only called when the CPU has NEON.
#if defined(__ARM_NEON)

#include <arm_neon.h>

#include <cstring>

#include "int16/conv_kernels.hpp"

namespace fpgacnn::int16_detail {

namespace {

constexpr int kBlock = 8;
constexpr int kPixels = 6;
static_assert(kBandPixels % kPixels == 0, "a band is a whole number of tiles");

// The two AArch64-only instructions the kernel uses, with their ARMv7 equivalents (same lanes, same
// wrapping sums; ARMv7 just needs an extra move or two).
inline int32x4_t multiply_add_high(int32x4_t acc, int16x8_t a, int16x8_t b) {
#if defined(__aarch64__)
    return vmlal_high_s16(acc, a, b);
#else
    return vmlal_s16(acc, vget_high_s16(a), vget_high_s16(b));
#endif
}

/// (a0 + a1, a2 + a3, b0 + b1, b2 + b3)
inline int32x4_t pairwise_add(int32x4_t a, int32x4_t b) {
#if defined(__aarch64__)
    return vpaddq_s32(a, b);
#else
    return vcombine_s32(vpadd_s32(vget_low_s32(a), vget_high_s32(a)),
                        vpadd_s32(vget_low_s32(b), vget_high_s32(b)));
#endif
}

inline int16x8_t broadcast_pair(const int16_t* pair) {
    int32_t bits;
    std::memcpy(&bits, pair, sizeof bits);
    return vreinterpretq_s16_s32(vdupq_n_s32(bits));
}

void tile_neon(const ConvBandJob& job, const int16_t* const origin[kPixels], int32_t (*tile)[kBandPixels],
               int t0) {
    const ConvGeometry& g = *job.geometry;
    // acc[i][j]: pixel i, filters 2j and 2j+1, lanes (2j even channel, 2j odd, 2j+1 even, 2j+1 odd).
    int32x4_t acc[kPixels][4];
    for (int i = 0; i < kPixels; ++i) {
        for (int j = 0; j < 4; ++j) acc[i][j] = vdupq_n_s32(0);
    }
    const int16_t* w = job.weights;
    for (int s = 0; s < g.steps; ++s, w += 2 * kBlock) {
        const int16x8_t w0 = vld1q_s16(w);
        const int16x8_t w1 = vld1q_s16(w + 8);
        const std::ptrdiff_t at = g.step_offsets[s];
        for (int i = 0; i < kPixels; ++i) {
            const int16x8_t x = broadcast_pair(origin[i] + at);
            acc[i][0] = vmlal_s16(acc[i][0], vget_low_s16(w0), vget_low_s16(x));
            acc[i][1] = multiply_add_high(acc[i][1], w0, x);
            acc[i][2] = vmlal_s16(acc[i][2], vget_low_s16(w1), vget_low_s16(x));
            acc[i][3] = multiply_add_high(acc[i][3], w1, x);
        }
    }
    const int32x4_t bias0 = vld1q_s32(job.biases);
    const int32x4_t bias1 = vld1q_s32(job.biases + 4);
    for (int i = 0; i < kPixels; ++i) {
        // Pairwise adds give filters 0-3 and 4-7; then the bias.
        const int32x4_t low = vaddq_s32(pairwise_add(acc[i][0], acc[i][1]), bias0);
        const int32x4_t high = vaddq_s32(pairwise_add(acc[i][2], acc[i][3]), bias1);
        int32_t column[kBlock];
        vst1q_s32(column, low);
        vst1q_s32(column + 4, high);
        for (int m = 0; m < kBlock; ++m) tile[m][t0 + i] = column[m];
    }
}

}  // namespace

void conv_band_neon(const ConvBandJob& job) {
    const ConvGeometry& g = *job.geometry;
    alignas(16) int32_t tile[kBlock][kBandPixels];
    PixelWalker walker(g, job.packed_input, job.first_pixel);
    for (int t0 = 0; t0 < job.pixel_count; t0 += kPixels) {
        const int16_t* origin[kPixels];
        walker.take(origin, job.pixel_count - t0);
        tile_neon(job, origin, tile, t0);
    }
    for (int m = 0; m < job.filter_count; ++m) {
        int16_t* out =
            job.output + static_cast<std::ptrdiff_t>(job.first_filter + m) * g.out_pixels + job.first_pixel;
        requantize_neon(tile[m], out, static_cast<std::size_t>(job.pixel_count), job.output_shift,
                        job.activation);
        narrow_to_width(out, static_cast<std::size_t>(job.pixel_count), job.output_bits);
    }
}

}  // namespace fpgacnn::int16_detail

#endif

// The portable path: the same packed layouts and blocking as the SIMD paths (so it also checks
// the packing on any CPU), with 8 filters x 4 pixels of accumulators in plain C++.
#include "int16/conv_kernels.hpp"

namespace fpgacnn::int16_detail {

namespace {
constexpr int kBlock = 8;
constexpr int kPixels = 4;
static_assert(kBandPixels % kPixels == 0, "a band is a whole number of tiles");
}  // namespace

void conv_band_scalar(const ConvBandJob& job) {
    const ConvGeometry& g = *job.geometry;
    int32_t tile[kBlock][kBandPixels];
    PixelWalker walker(g, job.packed_input, job.first_pixel);
    for (int t0 = 0; t0 < job.pixel_count; t0 += kPixels) {
        const int16_t* origin[kPixels];
        walker.take(origin, job.pixel_count - t0);
        // Unsigned accumulation: wrap-around modulo 2^32 is defined, exactly as arith::mac.
        uint32_t acc[kBlock][kPixels];
        for (int m = 0; m < kBlock; ++m) {
            for (int i = 0; i < kPixels; ++i) acc[m][i] = static_cast<uint32_t>(job.biases[m]);
        }
        const int16_t* w = job.weights;
        for (int s = 0; s < g.steps; ++s, w += 2 * kBlock) {
            const std::ptrdiff_t at = g.step_offsets[s];
            for (int i = 0; i < kPixels; ++i) {
                const int32_t x0 = origin[i][at];
                const int32_t x1 = origin[i][at + 1];
                for (int m = 0; m < kBlock; ++m) {
                    acc[m][i] +=
                        static_cast<uint32_t>(w[2 * m] * x0) + static_cast<uint32_t>(w[2 * m + 1] * x1);
                }
            }
        }
        for (int m = 0; m < kBlock; ++m) {
            for (int i = 0; i < kPixels; ++i) tile[m][t0 + i] = static_cast<int32_t>(acc[m][i]);
        }
    }
    for (int m = 0; m < job.filter_count; ++m) {
        int16_t* out =
            job.output + static_cast<std::ptrdiff_t>(job.first_filter + m) * g.out_pixels + job.first_pixel;
        requantize_scalar(tile[m], out, static_cast<std::size_t>(job.pixel_count), job.output_shift,
                          job.activation);
        narrow_to_width(out, static_cast<std::size_t>(job.pixel_count), job.output_bits);
    }
}

}  // namespace fpgacnn::int16_detail

// Naive int16 layers written straight from the arithmetic contract (arithmetic.hpp) and darknet's
// loops, with no tiling: the oracle the tiled kernel is compared with.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn::test {

struct RefConv {
    int in_c, in_h, in_w, out_c, out_h, out_w, size, stride, pad;
    uint32_t activation;  // arith::kActivation* code
    int bias_shift, output_shift;
    int output_bits;  // arith::kDataBits or kNarrowBits
};

/// weights in darknet order [out_c][in_c][size][size].
inline std::vector<int16_t> reference_conv(const RefConv& p, const int16_t* input, const int16_t* weights,
                                           const int16_t* biases) {
    std::vector<int16_t> out(static_cast<std::size_t>(p.out_c) * p.out_h * p.out_w);
    for (int m = 0; m < p.out_c; ++m) {
        for (int y = 0; y < p.out_h; ++y) {
            for (int x = 0; x < p.out_w; ++x) {
                int32_t acc = arith::align_bias(biases[m], p.bias_shift);
                for (int n = 0; n < p.in_c; ++n) {
                    for (int ky = 0; ky < p.size; ++ky) {
                        const int iy = y * p.stride - p.pad + ky;
                        if (iy < 0 || iy >= p.in_h) continue;
                        for (int kx = 0; kx < p.size; ++kx) {
                            const int ix = x * p.stride - p.pad + kx;
                            if (ix < 0 || ix >= p.in_w) continue;
                            const int16_t w =
                                weights[((static_cast<std::size_t>(m) * p.in_c + n) * p.size + ky) * p.size +
                                        kx];
                            const int16_t v =
                                input[(static_cast<std::size_t>(n) * p.in_h + iy) * p.in_w + ix];
                            acc = arith::mac(acc, w, v);
                        }
                    }
                }
                out[(static_cast<std::size_t>(m) * p.out_h + y) * p.out_w + x] =
                    arith::requantize_to_width(acc, p.output_shift, p.activation, p.output_bits);
            }
        }
    }
    return out;
}

/// darknet maxpool: window at (y*S - pad, x*S - pad), out-of-range taps skipped.
inline std::vector<int16_t> reference_maxpool(int c, int in_h, int in_w, int out_h, int out_w, int size,
                                              int stride, int pad, int output_shift, const int16_t* input) {
    std::vector<int16_t> out(static_cast<std::size_t>(c) * out_h * out_w);
    for (int k = 0; k < c; ++k) {
        for (int y = 0; y < out_h; ++y) {
            for (int x = 0; x < out_w; ++x) {
                int32_t best = -32768;
                for (int ky = 0; ky < size; ++ky) {
                    for (int kx = 0; kx < size; ++kx) {
                        const int iy = y * stride - pad + ky;
                        const int ix = x * stride - pad + kx;
                        if (iy < 0 || iy >= in_h || ix < 0 || ix >= in_w) continue;
                        best = std::max<int32_t>(
                            best, input[(static_cast<std::size_t>(k) * in_h + iy) * in_w + ix]);
                    }
                }
                out[(static_cast<std::size_t>(k) * out_h + y) * out_w + x] =
                    arith::requantize(best, output_shift, false);
            }
        }
    }
    return out;
}

/// darknet reorg_cpu(forward = 0) with the layer's input w, h, c.
inline std::vector<int16_t> reference_reorg(int c, int h, int w, int s, int output_shift,
                                            const int16_t* input) {
    std::vector<int16_t> out(static_cast<std::size_t>(c) * h * w);
    const int oc = c / (s * s);
    for (int k = 0; k < c; ++k) {
        for (int j = 0; j < h; ++j) {
            for (int i = 0; i < w; ++i) {
                const int c2 = k % oc;
                const int offset = k / oc;
                const int w2 = i * s + offset % s;
                const int h2 = j * s + offset / s;
                const std::size_t from =
                    w2 + static_cast<std::size_t>(w) * s * (h2 + static_cast<std::size_t>(h) * s * c2);
                out[i + static_cast<std::size_t>(w) * (j + static_cast<std::size_t>(h) * k)] =
                    arith::requantize(input[from], output_shift, false);
            }
        }
    }
    return out;
}

}  // namespace fpgacnn::test

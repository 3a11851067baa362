// Shared helpers of the int16 tests: deterministic random int16 data and naive darknet-style
// maxpool / reorg written the way darknet's own loops are, independently of the backend's code.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::test {

/// Values over the full int16 range, with -32768 and 32767 forced in now and then.
inline std::vector<int16_t> random_int16(std::mt19937& rng, std::size_t n, int lo = -32768, int hi = 32767) {
    std::uniform_int_distribution<int> value(lo, hi);
    std::uniform_int_distribution<int> extreme(0, 15);
    std::vector<int16_t> data(n);
    for (int16_t& v : data) {
        const int pick = extreme(rng);
        v = static_cast<int16_t>(pick == 0 ? lo : pick == 1 ? hi : value(rng));
    }
    return data;
}

/// darknet's forward_maxpool_layer loop, with -FLT_MAX replaced by the int16 minimum.
inline std::vector<int16_t> naive_maxpool(const Layer& layer, const std::vector<int16_t>& in) {
    const MaxPoolParams& p = layer.maxpool();
    const int w_offset = -p.padding / 2;
    const int h_offset = -p.padding / 2;
    const int h = layer.input.h;
    const int w = layer.input.w;
    std::vector<int16_t> out(layer.output.size());
    for (int k = 0; k < layer.output.c; ++k) {
        for (int i = 0; i < layer.output.h; ++i) {
            for (int j = 0; j < layer.output.w; ++j) {
                const int out_index = j + layer.output.w * (i + layer.output.h * k);
                int best = -32768;
                for (int n = 0; n < p.size; ++n) {
                    for (int m = 0; m < p.size; ++m) {
                        const int cur_h = h_offset + i * p.stride + n;
                        const int cur_w = w_offset + j * p.stride + m;
                        const int index = cur_w + w * (cur_h + h * k);
                        const bool valid = cur_h >= 0 && cur_h < h && cur_w >= 0 && cur_w < w;
                        const int val = valid ? in[static_cast<std::size_t>(index)] : -32768;
                        best = val > best ? val : best;
                    }
                }
                out[static_cast<std::size_t>(out_index)] = static_cast<int16_t>(best);
            }
        }
    }
    return out;
}

/// darknet's reorg_cpu(x, w, h, c, batch=1, stride, forward=0, out) with the layer's input w, h, c.
inline std::vector<int16_t> naive_reorg(const Layer& layer, const std::vector<int16_t>& x) {
    const int w = layer.input.w;
    const int h = layer.input.h;
    const int c = layer.input.c;
    const int stride = layer.reorg().stride;
    const int out_c = c / (stride * stride);
    std::vector<int16_t> out(x.size());
    for (int k = 0; k < c; ++k) {
        for (int j = 0; j < h; ++j) {
            for (int i = 0; i < w; ++i) {
                const int in_index = i + w * (j + h * k);
                const int c2 = k % out_c;
                const int offset = k / out_c;
                const int w2 = i * stride + offset % stride;
                const int h2 = j * stride + offset / stride;
                const int out_index = w2 + w * stride * (h2 + h * stride * c2);
                out[static_cast<std::size_t>(in_index)] = x[static_cast<std::size_t>(out_index)];
            }
        }
    }
    return out;
}

}  // namespace fpgacnn::test

#include <algorithm>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::train_fixed {

void require_sizes(const char* phase, std::size_t got, std::size_t want, const char* what) {
    if (got != want) {
        throw Error(std::string(phase) + ": " + what + " has " + std::to_string(got) +
                    " values, the layer needs " + std::to_string(want));
    }
}

ConvShape conv_shape(int in_c, int in_h, int in_w, int out_c, int kernel_size, int stride, int pad) {
    ConvShape s;
    s.in_c = in_c, s.in_h = in_h, s.in_w = in_w, s.out_c = out_c;
    s.kernel_size = kernel_size, s.stride = stride, s.pad = pad;
    s.out_h = static_cast<int>(
        kernel::conv_output_extent(static_cast<uint32_t>(in_h), static_cast<uint32_t>(kernel_size),
                                   static_cast<uint32_t>(stride), static_cast<uint32_t>(pad)));
    s.out_w = static_cast<int>(
        kernel::conv_output_extent(static_cast<uint32_t>(in_w), static_cast<uint32_t>(kernel_size),
                                   static_cast<uint32_t>(stride), static_cast<uint32_t>(pad)));
    return s;
}

// The transposed convolution by its definition: each output pixel's products are scattered to the
// input positions they came from (no rotation, no classes, no padding arithmetic shared with the kernel).
std::vector<int16_t> conv_backward(const ConvShape& s, int batch, const std::vector<int16_t>& dy,
                                   const std::vector<int16_t>& weights, int shift) {
    require_sizes("conv backward", dy.size(), s.output_elements() * static_cast<std::size_t>(batch),
                  "the error");
    require_sizes("conv backward", weights.size(), s.weight_elements(), "the weights");
    const int k = s.kernel_size;
    std::vector<int16_t> dx(s.input_elements() * static_cast<std::size_t>(batch));
    std::vector<int32_t> sums(s.input_elements());
    for (int b = 0; b < batch; ++b) {
        std::fill(sums.begin(), sums.end(), 0);
        const int16_t* e = dy.data() + s.output_elements() * static_cast<std::size_t>(b);
        for (int m = 0; m < s.out_c; ++m) {
            for (int r = 0; r < s.out_h; ++r) {
                for (int c = 0; c < s.out_w; ++c) {
                    const int16_t value = e[(static_cast<std::size_t>(m) * s.out_h + r) * s.out_w + c];
                    for (int n = 0; n < s.in_c; ++n) {
                        for (int i = 0; i < k; ++i) {
                            const int h = r * s.stride + i - s.pad;
                            if (h < 0 || h >= s.in_h) continue;
                            for (int j = 0; j < k; ++j) {
                                const int w = c * s.stride + j - s.pad;
                                if (w < 0 || w >= s.in_w) continue;
                                const int16_t weight =
                                    weights[((static_cast<std::size_t>(m) * s.in_c + n) * k + i) * k + j];
                                int32_t& sum = sums[(static_cast<std::size_t>(n) * s.in_h + h) * s.in_w + w];
                                sum = arith::mac(sum, weight, value);
                            }
                        }
                    }
                }
            }
        }
        int16_t* out = dx.data() + s.input_elements() * static_cast<std::size_t>(b);
        for (std::size_t i = 0; i < sums.size(); ++i) out[i] = arith::requantize(sums[i], shift, false);
    }
    return dx;
}

std::vector<int16_t> weight_gradient(const ConvShape& s, int batch, const std::vector<int16_t>& x,
                                     const std::vector<int16_t>& dy, int shift) {
    require_sizes("weight gradient", x.size(), s.input_elements() * static_cast<std::size_t>(batch),
                  "the input");
    require_sizes("weight gradient", dy.size(), s.output_elements() * static_cast<std::size_t>(batch),
                  "the error");
    const int k = s.kernel_size;
    std::vector<int64_t> sums(s.weight_elements(), 0);
    for (int b = 0; b < batch; ++b) {
        const int16_t* in = x.data() + s.input_elements() * static_cast<std::size_t>(b);
        const int16_t* e = dy.data() + s.output_elements() * static_cast<std::size_t>(b);
        for (int m = 0; m < s.out_c; ++m) {
            for (int n = 0; n < s.in_c; ++n) {
                for (int i = 0; i < k; ++i) {
                    for (int j = 0; j < k; ++j) {
                        int64_t& sum = sums[((static_cast<std::size_t>(m) * s.in_c + n) * k + i) * k + j];
                        for (int r = 0; r < s.out_h; ++r) {
                            const int h = r * s.stride + i - s.pad;
                            if (h < 0 || h >= s.in_h) continue;
                            for (int c = 0; c < s.out_w; ++c) {
                                const int w = c * s.stride + j - s.pad;
                                if (w < 0 || w >= s.in_w) continue;
                                sum = arith::mac64(
                                    sum, e[(static_cast<std::size_t>(m) * s.out_h + r) * s.out_w + c],
                                    in[(static_cast<std::size_t>(n) * s.in_h + h) * s.in_w + w]);
                            }
                        }
                    }
                }
            }
        }
    }
    std::vector<int16_t> dw(sums.size());
    for (std::size_t i = 0; i < sums.size(); ++i) dw[i] = arith::requantize_gradient(sums[i], shift);
    return dw;
}

}  // namespace fpgacnn::train_fixed

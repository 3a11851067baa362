// The scalar reference conv: the contract written as plainly as possible. Every fast path is
// tested bit for bit against this.
#include <cstddef>

#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {

void int16_conv_reference(const Int16ConvArgs& args, const int16_t* weights, const int16_t* biases,
                          const int16_t* input, int16_t* output) {
    check_int16_conv_args(args, "int16_conv_reference");
    const TensorShape& in = args.input;
    const TensorShape& out = args.output;
    const int k = args.size;
    for (int m = 0; m < out.c; ++m) {
        const int16_t* filter = weights + static_cast<std::size_t>(m) * in.c * k * k;
        for (int oy = 0; oy < out.h; ++oy) {
            for (int ox = 0; ox < out.w; ++ox) {
                int32_t acc = arith::align_bias(biases[m], args.bias_shift);
                for (int c = 0; c < in.c; ++c) {
                    for (int ky = 0; ky < k; ++ky) {
                        const int iy = oy * args.stride + ky - args.pad;
                        if (iy < 0 || iy >= in.h) continue;  // zero padding adds nothing
                        for (int kx = 0; kx < k; ++kx) {
                            const int ix = ox * args.stride + kx - args.pad;
                            if (ix < 0 || ix >= in.w) continue;
                            const int16_t w = filter[(static_cast<std::size_t>(c) * k + ky) * k + kx];
                            const int16_t x = input[(static_cast<std::size_t>(c) * in.h + iy) * in.w + ix];
                            acc = arith::mac(acc, w, x);
                        }
                    }
                }
                output[(static_cast<std::size_t>(m) * out.h + oy) * out.w + ox] = arith::requantize_to_width(
                    acc, args.output_shift, int16_activation_code(args), args.output_bits);
            }
        }
    }
}

}  // namespace fpgacnn

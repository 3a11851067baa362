#include <algorithm>
#include <cmath>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/weight_layout.hpp"
#include "train_fixed/train_fixed.hpp"

namespace fpgacnn::train_fixed {

std::vector<int16_t> backward_weights(const ConvShape& s, const std::vector<int16_t>& weights, int tm,
                                      int tn) {
    kernel::WeightLayout forward;
    forward.out_c = static_cast<uint32_t>(s.out_c);
    forward.in_c = static_cast<uint32_t>(s.in_c);
    forward.kernel_size = static_cast<uint32_t>(s.kernel_size);
    forward.tm = static_cast<uint32_t>(tm);
    forward.tn = static_cast<uint32_t>(tn);
    std::vector<int16_t> out(kernel::backward_weight_layout(forward).total_elements(), 0);
    for (uint32_t m = 0; m < forward.out_c; ++m)
        for (uint32_t n = 0; n < forward.in_c; ++n)
            for (uint32_t ky = 0; ky < forward.kernel_size; ++ky)
                for (uint32_t kx = 0; kx < forward.kernel_size; ++kx)
                    out[kernel::backward_weight_index(forward, m, n, ky, kx)] =
                        weights[forward.darknet_index(m, n, ky, kx)];
    return out;
}

int dynamic_exponent(double max_abs) {
    const int highest = 2 * arith::kMaxExponent;
    if (!(max_abs > 0)) return highest;
    // max_abs * 2^q <= 32767 <=> q <= log2(32767 / max_abs); the loop settles the rounding of log2.
    int q = static_cast<int>(std::floor(std::log2(32767.0 / max_abs)));
    while (std::ldexp(max_abs, q) > 32767.0) --q;
    while (q < highest && std::ldexp(max_abs, q + 1) <= 32767.0) ++q;
    return std::clamp(q, arith::kMinExponent, highest);
}

int error_exponent(double max_abs, int weight_exponent, int delta_exponent) {
    return std::min(dynamic_exponent(max_abs), delta_exponent + kBackwardMaxShift - weight_exponent);
}

kernel::LayerCommand phase_command(uint32_t op, const ConvShape& s, int batch, int shift,
                                   const kernel::Maxima& maxima) {
    kernel::LayerCommand c{};
    c.op = op;
    c.in_c = static_cast<uint32_t>(s.in_c), c.in_h = static_cast<uint32_t>(s.in_h),
    c.in_w = static_cast<uint32_t>(s.in_w);
    c.out_c = static_cast<uint32_t>(s.out_c), c.out_h = static_cast<uint32_t>(s.out_h);
    c.out_w = static_cast<uint32_t>(s.out_w);
    c.kernel_size = static_cast<uint32_t>(s.kernel_size), c.stride = static_cast<uint32_t>(s.stride);
    c.pad = static_cast<uint32_t>(s.pad);
    c.output_shift = shift;
    // BP tiles its output dX (the forward input), WG the error (the forward output).
    const bool backward = op == kernel::kOpConvBackward;
    c.tile_rows = static_cast<uint32_t>(std::min(backward ? s.in_h : s.out_h, maxima.tr));
    c.tile_cols = static_cast<uint32_t>(std::min(backward ? s.in_w : s.out_w, maxima.tc));
    c.output_bits = c.weight_bits = c.input_bits = static_cast<uint32_t>(arith::kDataBits);
    c.batch = static_cast<uint32_t>(batch);
    return c;
}

}  // namespace fpgacnn::train_fixed

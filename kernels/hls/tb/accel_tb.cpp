// C-simulation testbench for the HLS flows (csim_design): runs a few layers through the top
// function and compares them with a straightforward loop nest. The full property tests run
// natively in tests/kernel; this only proves the HLS tool compiles and runs the same code.
#include <stdint.h>
#include <stdio.h>

#include <vector>

#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/weight_layout.hpp"

namespace {

using namespace fpgacnn;

/// Element i of a tensor stored at `bits` from element `offset` of that width (8-bit tensors are one
/// signed byte per element: arith::fm_element_bytes).
void store(std::vector<int16_t>& arena, uint32_t offset, uint32_t i, uint32_t bits, int16_t value) {
    if (bits == 8u) {
        reinterpret_cast<int8_t*>(&arena[0])[offset + i] = static_cast<int8_t>(value);
    } else {
        arena[offset + i] = value;
    }
}
int16_t load(std::vector<int16_t>& arena, uint32_t offset, uint32_t i, uint32_t bits) {
    if (bits == 8u) return reinterpret_cast<int8_t*>(&arena[0])[offset + i];
    return arena[offset + i];
}

int16_t pseudo_random(uint32_t& state) {
    state = state * 1664525u + 1013904223u;
    return static_cast<int16_t>(static_cast<int32_t>(state >> 16) % 2000 - 1000);
}

int check_conv(uint32_t in_c, uint32_t in_hw, uint32_t out_c, uint32_t k, uint32_t s, uint32_t pad,
               uint32_t output_bits, uint32_t weight_bits, uint32_t input_bits) {
    const uint32_t out_hw = kernel::conv_output_extent(in_hw, k, s, pad);
    const kernel::WeightLayout layout = {out_c, in_c, k, static_cast<uint32_t>(kernel::kTm),
                                         static_cast<uint32_t>(kernel::kTn)};
    const uint32_t in_size = in_c * in_hw * in_hw;
    const uint32_t out_size = out_c * out_hw * out_hw;
    const uint32_t bias_size = kernel::padded_bias_elements(out_c, kernel::kTm);
    std::vector<int16_t> arena(in_size + out_size, 0);
    // The output starts after the input's words, counted in elements of the output's width.
    const uint32_t output_offset = 2 * in_size / arith::fm_element_bytes(static_cast<int>(output_bits));
    const int bits = static_cast<int>(weight_bits);
    const uint32_t bias_offset = layout.total_words(bits);
    std::vector<int16_t> params(bias_offset + bias_size, 0);
    std::vector<int16_t> weights(out_c * in_c * k * k);
    uint32_t state = 12345;
    for (uint32_t i = 0; i < in_size; ++i)
        store(arena, 0, i, input_bits,
              arith::saturate_to_width(pseudo_random(state) / 4, static_cast<int>(input_bits)));
    for (uint32_t i = 0; i < weights.size(); ++i)
        weights[i] = arith::saturate_to_width(pseudo_random(state) / 4, bits);  // some saturate at 8 bits
    for (uint32_t m = 0; m < out_c; ++m) params[bias_offset + m] = pseudo_random(state);
    std::vector<int16_t> reordered(layout.total_elements(), 0);
    for (uint32_t m = 0; m < out_c; ++m)
        for (uint32_t n = 0; n < in_c; ++n)
            for (uint32_t ky = 0; ky < k; ++ky)
                for (uint32_t kx = 0; kx < k; ++kx)
                    reordered[layout.index(m, n, ky, kx)] = weights[layout.darknet_index(m, n, ky, kx)];
    kernel::store_weight_blocks(layout, &reordered[0], bits, &params[0]);

    const uint32_t tile_rows = out_hw < static_cast<uint32_t>(kernel::kTr) ? out_hw : kernel::kTr;
    const uint32_t tile_cols = out_hw < static_cast<uint32_t>(kernel::kTc) ? out_hw : kernel::kTc;
    fpgacnn_accel(
        kernel::kOpConv, 0, output_offset, 0, bias_offset, in_c, in_hw, in_hw, out_c, out_hw, out_hw, k, s,
        pad, 1, 2, 9, tile_rows, tile_cols, output_bits, weight_bits, input_bits, 0, 1,
        reinterpret_cast<const kernel::WordBeat*>(&arena[0]), reinterpret_cast<kernel::WordBeat*>(&arena[0]),
        reinterpret_cast<const kernel::WordBeat*>(&params[0]),
        reinterpret_cast<const kernel::ByteBeat*>(&arena[0]), reinterpret_cast<kernel::ByteBeat*>(&arena[0]));

    int errors = 0;
    for (uint32_t m = 0; m < out_c; ++m) {
        for (uint32_t y = 0; y < out_hw; ++y) {
            for (uint32_t x = 0; x < out_hw; ++x) {
                int32_t acc = arith::align_bias(params[bias_offset + m], 2);
                for (uint32_t n = 0; n < in_c; ++n)
                    for (uint32_t ky = 0; ky < k; ++ky)
                        for (uint32_t kx = 0; kx < k; ++kx) {
                            const int iy = static_cast<int>(y * s + ky) - static_cast<int>(pad);
                            const int ix = static_cast<int>(x * s + kx) - static_cast<int>(pad);
                            if (iy < 0 || ix < 0 || iy >= static_cast<int>(in_hw) ||
                                ix >= static_cast<int>(in_hw))
                                continue;
                            acc = arith::mac(acc, weights[layout.darknet_index(m, n, ky, kx)],
                                             load(arena, 0, (n * in_hw + iy) * in_hw + ix, input_bits));
                        }
                const int16_t expected =
                    arith::requantize_to_width(acc, 9, true, static_cast<int>(output_bits));
                if (load(arena, output_offset, (m * out_hw + y) * out_hw + x, output_bits) != expected)
                    ++errors;
            }
        }
    }
    printf("conv %ux%ux%u -> %u maps, k%u s%u, %u-bit input, %u-bit weights, %u-bit output: %d mismatches\n",
           in_c, in_hw, in_hw, out_c, k, s, input_bits, weight_bits, output_bits, errors);
    return errors;
}

}  // namespace

int main() {
    int errors = 0;
    errors += check_conv(3, 30, 16, 3, 1, 1, 16, 16, 16);
    errors += check_conv(37, 13, 45, 1, 1, 0, 16, 8, 16);
    errors += check_conv(5, 29, 33, 3, 2, 1, 8, 8, 16);
    errors += check_conv(6, 27, 20, 3, 1, 1, 8, 8, 8);  // pair mode, an odd last column, byte-wide ports

    printf(errors == 0 ? "PASS\n" : "FAIL\n");
    return errors == 0 ? 0 : 1;
}

// darknet's [reorg] (reorg_cpu with forward = 0) on int16, index for index. With the layer's INPUT
// w, h, c and oc = c / s^2:
//   out[i + w*(j + h*k)] = in[(i*s + (k/oc)%s) + w*s*((j*s + (k/oc)/s) + h*s*(k%oc))]
// Each output row segment (fixed k, j) reads one input row segment with stride s: one burst in,
// one burst out, at the tensor's width (8-bit tensors through the byte-wide ports, like tile_io.hpp).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "tile_buffers.hpp"
#include "tile_io.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

template <class Traffic>
void reorg_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                 const ByteBeat* fm8_read, ByteBeat* fm8_write, Traffic& traffic) {
    int16_t line_in[kInputTileCols];
    int16_t line_out[kTc];

    const uint32_t s = cmd.stride;
    const uint32_t w = cmd.in_w;
    const uint32_t h = cmd.in_h;
    const uint32_t channels = cmd.in_c;
    const uint32_t oc = channels / (s * s);
    const uint32_t segment = cmd.tile_cols;
    const int bits = static_cast<int>(cmd.output_bits);  // == input_bits (check_command)
    const uint32_t element_bytes = arith::fm_element_bytes(bits);
    for (uint32_t k = 0; k < channels; ++k) {
        const uint32_t offset = k / oc;
        const uint32_t source_map = k % oc;
        for (uint32_t j = 0; j < h; ++j) {
            const uint32_t source_row =
                cmd.input_offset + ((source_map * h * s) + j * s + offset / s) * (w * s) + offset % s;
            const uint32_t target_row = cmd.output_offset + (k * h + j) * w;
            for (uint32_t i0 = 0; i0 < w; i0 += segment) {
                const uint32_t count = (w - i0 < segment) ? w - i0 : segment;
                const uint32_t span = (count - 1) * s + 1;
                if (bits == arith::kNarrowBits) {
                    read_run<int8_t>(fm8_read, source_row + i0 * s, static_cast<int>(span), line_in);
                } else {
                    read_run<int16_t>(fm_read, source_row + i0 * s, static_cast<int>(span), line_in);
                }
                traffic.fm_read(span, element_bytes);
                for (uint32_t i = 0; i < count; ++i) {
#pragma HLS PIPELINE II = 1
                    line_out[i] = arith::requantize_to_width(line_in[i * s], cmd.output_shift, false, bits);
                }
                if (bits == arith::kNarrowBits) {
                    write_run<int8_t>(line_out, static_cast<int>(count), fm8_write, target_row + i0);
                } else {
                    write_run<int16_t>(line_out, static_cast<int>(count), fm_write, target_row + i0);
                }
                traffic.fm_write(count, element_bytes);
            }
        }
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

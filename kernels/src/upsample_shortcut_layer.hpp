// Contract 7's element-wise ops (layer_command.hpp kOpUpsample, kOpShortcut; docs/kernel.md "Upsample
// and shortcut"): row segments streamed from the arena through one requantizer and back, at each
// tensor's width (8-bit tensors through the byte-wide ports, like tile_io.hpp). They use no tile buffer
// and no MAC: line buffers of kMaxElementwiseSegment (256) elements and the store stage's rounding.
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "port_io.hpp"
#include "tile_buffers.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

/// One run of `count` elements of a tensor at `bits` into `line` (int16 on chip).
template <class Traffic>
void read_line(const WordBeat* fm, const ByteBeat* fm8, int bits, uint32_t source, int count, int16_t* line,
               Traffic& traffic) {
    if (bits == arith::kNarrowBits) {
        read_run<int8_t>(fm8, source, count, line);
    } else {
        read_run<int16_t>(fm, source, count, line);
    }
    traffic.fm_read(static_cast<uint32_t>(count), arith::fm_element_bytes(bits));
}

/// One run of `count` elements from `line` to a tensor at `bits` (values already saturated to it).
template <class Traffic>
void write_line(const int16_t* line, int count, int bits, WordBeat* fm, ByteBeat* fm8, uint32_t target,
                Traffic& traffic) {
    if (bits == arith::kNarrowBits) {
        write_run<int8_t>(line, count, fm8, target);
    } else {
        write_run<int16_t>(line, count, fm, target);
    }
    traffic.fm_write(static_cast<uint32_t>(count), arith::fm_element_bytes(bits));
}

/// darknet's upsample_cpu (forward, scale 1): out[k][y][x] = in[k][y / s][x / s]. Each output row segment
/// of tile_cols columns needs ceil-many input columns, read once and written to the s output rows that
/// repeat it: the input is read once, the output written once.
template <class Traffic>
void upsample_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                    const ByteBeat* fm8_read, ByteBeat* fm8_write, Traffic& traffic) {
    int16_t line_in[kMaxElementwiseSegment];
    int16_t line_out[kMaxElementwiseSegment];
    const uint32_t s = cmd.stride;
    const int bits = static_cast<int>(cmd.output_bits);  // == input_bits (check_command)
    const uint32_t segment = cmd.tile_cols;
    for (uint32_t k = 0; k < cmd.in_c; ++k) {
        for (uint32_t y = 0; y < cmd.in_h; ++y) {
            const uint32_t source_row = cmd.input_offset + (k * cmd.in_h + y) * cmd.in_w;
            for (uint32_t x0 = 0; x0 < cmd.out_w; x0 += segment) {
                const uint32_t count = (cmd.out_w - x0 < segment) ? cmd.out_w - x0 : segment;
                const uint32_t first = x0 / s;
                const uint32_t span = (x0 + count - 1) / s - first + 1;
                read_line(fm_read, fm8_read, bits, source_row + first, static_cast<int>(span), line_in,
                          traffic);
                // Counters instead of a division per element: x0 + i = (first + source) * s + phase.
                uint32_t source = 0;
                uint32_t phase = x0 - first * s;
                for (uint32_t i = 0; i < count; ++i) {
#pragma HLS PIPELINE II = 1
                    line_out[i] = arith::requantize_to_width(line_in[source], cmd.output_shift,
                                                             arith::kActivationLinear, bits);
                    ++phase;
                    if (phase == s) {
                        phase = 0;
                        ++source;
                    }
                }
                for (uint32_t r = 0; r < s; ++r) {
                    const uint32_t target = cmd.output_offset + (k * cmd.out_h + y * s + r) * cmd.out_w + x0;
                    write_line(line_out, static_cast<int>(count), bits, fm_write, fm8_write, target, traffic);
                }
            }
        }
    }
}

/// darknet's shortcut of two tensors of one shape: out = act(a + b) at aligned exponents, one rounding
/// (arith::shortcut_sum, arith::requantize_sum: the CPU engine's int16_shortcut computes the same). a is
/// at input_bits, b at weight_bits, the output at output_bits; each row segment is two reads and a write.
template <class Traffic>
void shortcut_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                    const ByteBeat* fm8_read, ByteBeat* fm8_write, Traffic& traffic) {
    int16_t line_a[kMaxElementwiseSegment];
    int16_t line_b[kMaxElementwiseSegment];
    int16_t line_out[kMaxElementwiseSegment];
    const int a_bits = static_cast<int>(cmd.input_bits);
    const int b_bits = static_cast<int>(cmd.weight_bits);
    const int out_bits = static_cast<int>(cmd.output_bits);
    const uint32_t segment = cmd.tile_cols;
    const uint32_t rows = cmd.in_c * cmd.in_h;
    for (uint32_t row = 0; row < rows; ++row) {
        const uint32_t first = row * cmd.in_w;
        for (uint32_t x0 = 0; x0 < cmd.in_w; x0 += segment) {
            const uint32_t count = (cmd.in_w - x0 < segment) ? cmd.in_w - x0 : segment;
            read_line(fm_read, fm8_read, a_bits, cmd.input_offset + first + x0, static_cast<int>(count),
                      line_a, traffic);
            read_line(fm_read, fm8_read, b_bits, cmd.error_offset + first + x0, static_cast<int>(count),
                      line_b, traffic);
            for (uint32_t i = 0; i < count; ++i) {
#pragma HLS PIPELINE II = 1
                line_out[i] = arith::requantize_sum(arith::shortcut_sum(line_a[i], line_b[i], cmd.bias_shift),
                                                    cmd.output_shift, cmd.leaky, out_bits);
            }
            write_line(line_out, static_cast<int>(count), out_bits, fm_write, fm8_write,
                       cmd.output_offset + first + x0, traffic);
        }
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

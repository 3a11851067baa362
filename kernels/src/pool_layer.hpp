// darknet maxpool on int16: the window of output pixel (y, x) starts at (y*S - pad, x*S - pad) with
// pad = darknet's padding / 2; taps outside the input never win (the tile is padded with -32768).
// A size-2 stride-1 pool (yolov2-tiny) keeps the input size and takes the max over the right/bottom
// edge's partial windows.
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/layer_command.hpp"
#include "tile_buffers.hpp"
#include "tile_io.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

static const int16_t kPoolPad = -32768;

inline void pool_compute(const InputTile& in, int kernel_size, int stride, int rows, int cols,
                         OutputTile& acc) {
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
#pragma HLS PIPELINE
            for (int n = 0; n < kPoolLanes; ++n) {
                int16_t best = kPoolPad;
                for (int ky = 0; ky < kernel_size; ++ky) {
                    for (int kx = 0; kx < kernel_size; ++kx) {
                        const int16_t v = in[n][r * stride + ky][c * stride + kx];
                        best = v > best ? v : best;
                    }
                }
                acc[r][c][n] = best;
            }
        }
    }
}

template <class Traffic>
void pool_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                const ByteBeat* fm8_read, ByteBeat* fm8_write, Traffic& traffic) {
    InputTile input_tile;
    OutputTile output_tile;
#pragma HLS ARRAY_PARTITION variable = input_tile complete dim = 1
#pragma HLS ARRAY_PARTITION variable = output_tile complete dim = 3

    const int out_h = static_cast<int>(cmd.out_h);
    const int out_w = static_cast<int>(cmd.out_w);
    const int maps = static_cast<int>(cmd.in_c);
    const int k = static_cast<int>(cmd.kernel_size);
    const int s = static_cast<int>(cmd.stride);
    const int pad = static_cast<int>(cmd.pad);
    for (int row0 = 0; row0 < out_h; row0 += static_cast<int>(cmd.tile_rows)) {
        const int rows = min_int(static_cast<int>(cmd.tile_rows), out_h - row0);
        for (int col0 = 0; col0 < out_w; col0 += static_cast<int>(cmd.tile_cols)) {
            const int cols = min_int(static_cast<int>(cmd.tile_cols), out_w - col0);
            for (int map0 = 0; map0 < maps; map0 += kPoolLanes) {
                const InputWindow win =
                    tile_input_window(cmd.input_offset, static_cast<int>(cmd.input_bits),
                                      static_cast<int>(cmd.in_h), static_cast<int>(cmd.in_w), map0,
                                      min_int(kPoolLanes, maps - map0), row0, rows, col0, cols, k, s, pad);
                load_input_tile(fm_read, fm8_read, win, kPoolPad, input_tile, traffic);
                pool_compute(input_tile, k, s, rows, cols, output_tile);

                OutputWindow out;
                out.tensor_offset = cmd.output_offset;
                out.bits = static_cast<int>(cmd.output_bits);
                out.height = out_h;
                out.width = out_w;
                out.first_map = map0;
                out.maps = win.valid_maps;
                out.first_row = row0;
                out.rows = rows;
                out.first_col = col0;
                out.cols = cols;
                // Linear requantization: the identity when the exponents match (output_shift 0, as
                // in every quantized network). A maxpool carries its input's width (output_bits ==
                // input_bits), so the saturation to it changes nothing then.
                store_output_tile(output_tile, out, cmd.output_shift, false, fm_write, fm8_write, traffic);
            }
        }
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

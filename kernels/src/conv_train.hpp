// The training phases of a conv layer on the forward conv's Tm x Tn array and buffers (contract 6,
// docs/kernel.md "Training phases", the dataflows of /work/notes/train-dataflow.md):
//   BP (input delta): stride-1 convolutions of the error dY with the rotated, channel-transposed
//     weights (Tm over the forward input maps N, Tn over the forward output maps M). A stride S > 1
//     splits each dX tile into S x S row/column classes, each a stride-1 pass of a sub-kernel of taps S
//     apart (array_pass), so no cycle multiplies a zero that stride insertion would add.
//   WG (weight gradient): Tm over M, Tn over N as forward; the K x K taps are the "output pixels", the
//     input tile X is the moving operand and the error tile dY the large "kernel", tiled over its rows
//     and columns; every multiplier keeps its own 64-bit sum (arith::mac64) over the tile, the image and
//     the batch.
#pragma once

#include <stdint.h>

#include "conv_layer.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "tile_buffers.hpp"
#include "tile_io.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

/// floor(a / b) for b > 0 and any sign of a (C++ division truncates toward zero).
inline int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// BP's pass for the stride class of tile row `class_row` and tile column `class_col` (0..S-1) of a
/// dX tile at (row0, col0). With the rotated kernel Wr and the stride-1 padding P' = K-1-P, dX row h
/// takes the taps i' = i0 + S*t with i0 = (P' - h) mod S, and tap t reads error row (h - P' + i0)/S + t;
/// the next row of the class (h + S) reads one error row further: a stride-1 pass. Columns likewise.
inline ArrayPass backward_class_pass(int kernel_size, int stride, int pad_t, int row0, int col0, int rows,
                                     int cols, int win_row0, int win_col0, int class_row, int class_col) {
    const int h = row0 + class_row;
    const int w = col0 + class_col;
    const int i0 = ((pad_t - h) % stride + stride) % stride;
    const int j0 = ((pad_t - w) % stride + stride) % stride;
    ArrayPass p;
    p.kernel_size = kernel_size;
    // Taps i0, i0 + S, ... below K (none when K < S leaves this class without taps: its sums stay 0).
    p.taps_y = i0 < kernel_size ? (kernel_size - i0 + stride - 1) / stride : 0;
    p.taps_x = j0 < kernel_size ? (kernel_size - j0 + stride - 1) / stride : 0;
    p.tap_y0 = i0, p.tap_x0 = j0, p.tap_step = stride;
    p.in_row0 = floor_div(h - pad_t + i0, stride) - win_row0;
    p.in_col0 = floor_div(w - pad_t + j0, stride) - win_col0;
    p.in_step = 1;
    p.out_row0 = class_row, p.out_col0 = class_col, p.out_step = stride;
    p.rows = (rows - class_row + stride - 1) / stride;
    p.cols = (cols - class_col + stride - 1) / stride;
    return p;
}

/// BP of one image: dX (in_c x in_h x in_w at dx_base) from dY (out_c x out_h x out_w at dy_base).
template <class Traffic>
void conv_backward_image(const LayerCommand& cmd, uint32_t dy_base, uint32_t dx_base, const WordBeat* fm_read,
                         WordBeat* fm_write, const ByteBeat* fm8_read, ByteBeat* fm8_write,
                         const WordBeat* params, InputTile input_tiles[2], WeightBlock weight_blocks[2],
                         OutputTile output_tiles[2], Traffic& traffic) {
    const int k = static_cast<int>(cmd.kernel_size);
    const int s = static_cast<int>(cmd.stride);
    const int pad_t = k - 1 - static_cast<int>(cmd.pad);  // the stride-1 equivalent's padding
    const int dx_c = static_cast<int>(cmd.in_c), dx_h = static_cast<int>(cmd.in_h);
    const int dx_w = static_cast<int>(cmd.in_w);
    const int dy_c = static_cast<int>(cmd.out_c);
    const int tile_rows = static_cast<int>(cmd.tile_rows), tile_cols = static_cast<int>(cmd.tile_cols);
    const int groups = static_cast<int>(div_ceil(cmd.out_c, kTn));  // reduction over the error's maps
    const uint32_t block_words = static_cast<uint32_t>(kTm * kTn) * cmd.kernel_size * cmd.kernel_size;

    OutputWindow pending;
    bool has_pending = false;
    int current = 0;
    for (int row0 = 0; row0 < dx_h; row0 += tile_rows) {
        const int rows = min_int(tile_rows, dx_h - row0);
        for (int col0 = 0; col0 < dx_w; col0 += tile_cols) {
            const int cols = min_int(tile_cols, dx_w - col0);
            // The error rows / columns any tap of this dX tile reads (load_input_tile zero-fills the
            // ones outside dY: the transposed convolution's padding).
            InputWindow win;
            win.tensor_offset = dy_base;
            win.bits = arith::kDataBits;
            win.height = static_cast<int>(cmd.out_h);
            win.width = static_cast<int>(cmd.out_w);
            win.first_row = floor_div(row0 - pad_t, s);
            win.first_col = floor_div(col0 - pad_t, s);
            win.rows = floor_div(row0 + rows - 1 - pad_t + k - 1, s) - win.first_row + 1;
            win.cols = floor_div(col0 + cols - 1 - pad_t + k - 1, s) - win.first_col + 1;
            for (int map0 = 0; map0 < dx_c; map0 += kTm) {
                OutputTile& acc = output_tiles[current];
                clear_tile(rows, cols, acc);
                const uint32_t weight_row = cmd.weight_offset + static_cast<uint32_t>(map0 / kTm) *
                                                                    static_cast<uint32_t>(groups) *
                                                                    block_words;
                for (int group = 0; group < groups; ++group) {
                    const int ping = group & 1;
                    if (group == 0) {
                        load_group(fm_read, fm8_read, params, dy_c, win, 0, weight_row, k, arith::kDataBits,
                                   input_tiles[0], weight_blocks[0], traffic);
                    }
                    if (group + 1 < groups) {
                        load_group(fm_read, fm8_read, params, dy_c, win, group + 1,
                                   weight_row + static_cast<uint32_t>(group + 1) * block_words, k,
                                   arith::kDataBits, input_tiles[1 - ping], weight_blocks[1 - ping], traffic);
                    }
                    for (int a = 0; a < min_int(s, rows); ++a) {
                        for (int b = 0; b < min_int(s, cols); ++b) {
                            const ArrayPass pass = backward_class_pass(k, s, pad_t, row0, col0, rows, cols,
                                                                       win.first_row, win.first_col, a, b);
                            array_pass(input_tiles[ping], weight_blocks[ping], pass, acc);
                            traffic.array_cycles(pass_cycles(pass));
                        }
                    }
                }
                if (has_pending) {
                    store_output_tile(output_tiles[1 - current], pending, cmd.output_shift, false, fm_write,
                                      fm8_write, traffic);
                }
                pending = output_window(dx_base, arith::kDataBits, dx_h, dx_w, map0,
                                        min_int(kTm, dx_c - map0), row0, rows, col0, cols);
                has_pending = true;
                current = 1 - current;
            }
        }
    }
    if (has_pending) {
        store_output_tile(output_tiles[1 - current], pending, cmd.output_shift, false, fm_write, fm8_write,
                          traffic);
    }
}

template <class Traffic>
void conv_backward_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                         const ByteBeat* fm8_read, ByteBeat* fm8_write, const WordBeat* params,
                         InputTile input_tiles[2], WeightBlock weight_blocks[2], OutputTile output_tiles[2],
                         Traffic& traffic) {
    const uint32_t dy_size = cmd.out_c * cmd.out_h * cmd.out_w;
    const uint32_t dx_size = cmd.in_c * cmd.in_h * cmd.in_w;
    for (uint32_t image = 0; image < cmd.batch; ++image) {
        conv_backward_image(cmd, cmd.input_offset + image * dy_size, cmd.output_offset + image * dx_size,
                            fm_read, fm_write, fm8_read, fm8_write, params, input_tiles, weight_blocks,
                            output_tiles, traffic);
    }
}

/// WG's pass over one error tile: for each tap (the "output pixel"), every multiplier (m, n) adds
/// dY[m][r][c] * X[n][r*S + ky][c*S + kx] over the tile's rows x cols into its own 64-bit sum. The
/// error value of map m is shared along the array's row m (as a weight is in FP), the input value of
/// map n along column n (as in FP); the adder trees are bypassed.
inline void gradient_pass(const InputTile& in, const OutputTile& error, int kernel_size, int stride, int rows,
                          int cols, GradientBlock& grad) {
    for (int ky = 0; ky < kernel_size; ++ky) {
        for (int kx = 0; kx < kernel_size; ++kx) {
            int64_t* sums = grad[ky * kernel_size + kx];
            int64_t local[kWeightLanes];
#pragma HLS ARRAY_PARTITION variable = local complete
            for (int lane = 0; lane < kWeightLanes; ++lane) local[lane] = sums[lane];
            for (int r = 0; r < rows; ++r) {
                for (int c = 0; c < cols; ++c) {
#pragma HLS PIPELINE II = 1
                    int16_t x[kTn];
#pragma HLS ARRAY_PARTITION variable = x complete
                    for (int n = 0; n < kTn; ++n) x[n] = in[n][r * stride + ky][c * stride + kx];
                    const int32_t* e = error[r][c];
                    for (int n = 0; n < kTn; ++n) {
                        for (int m = 0; m < kTm; ++m) {
                            local[n * kTm + m] =
                                arith::mac64(local[n * kTm + m], static_cast<int16_t>(e[m]), x[n]);
                        }
                    }
                }
            }
            for (int lane = 0; lane < kWeightLanes; ++lane) sums[lane] = local[lane];
        }
    }
}

template <class Traffic>
void weight_gradient_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                           const ByteBeat* fm8_read, InputTile input_tiles[2], OutputTile output_tiles[2],
                           Traffic& traffic) {
    InputTile& input_tile = input_tiles[0];
    OutputTile& error_tile = output_tiles[0];  // FP's output tile holds the error tile: Tr x Tc x Tm
    GradientBlock grad;                        // WG's own: one 64-bit sum per multiplier and tap
#pragma HLS ARRAY_PARTITION variable = grad complete dim = 2

    const int k = static_cast<int>(cmd.kernel_size);
    const int s = static_cast<int>(cmd.stride);
    const int pad = static_cast<int>(cmd.pad);
    const int in_c = static_cast<int>(cmd.in_c), out_c = static_cast<int>(cmd.out_c);
    const int out_h = static_cast<int>(cmd.out_h), out_w = static_cast<int>(cmd.out_w);
    const int tile_rows = static_cast<int>(cmd.tile_rows), tile_cols = static_cast<int>(cmd.tile_cols);
    const uint32_t x_size = cmd.in_c * cmd.in_h * cmd.in_w;
    const uint32_t e_size = cmd.out_c * cmd.out_h * cmd.out_w;

    for (int m0 = 0; m0 < out_c; m0 += kTm) {
        const int maps = min_int(kTm, out_c - m0);
        for (int n0 = 0; n0 < in_c; n0 += kTn) {
            clear_gradient_block(k, grad);
            for (uint32_t image = 0; image < cmd.batch; ++image) {
                for (int row0 = 0; row0 < out_h; row0 += tile_rows) {
                    const int rows = min_int(tile_rows, out_h - row0);
                    for (int col0 = 0; col0 < out_w; col0 += tile_cols) {
                        const int cols = min_int(tile_cols, out_w - col0);
                        const OutputWindow ewin =
                            output_window(cmd.error_offset + image * e_size, arith::kDataBits, out_h, out_w,
                                          m0, maps, row0, rows, col0, cols);
                        load_error_tile(fm_read, ewin, error_tile, traffic);
                        // The forward input window of this output tile: the taps' moving operand.
                        const InputWindow win =
                            tile_input_window(cmd.input_offset + image * x_size, arith::kDataBits,
                                              static_cast<int>(cmd.in_h), static_cast<int>(cmd.in_w), n0,
                                              min_int(kTn, in_c - n0), row0, rows, col0, cols, k, s, pad);
                        load_input_tile(fm_read, fm8_read, win, 0, input_tile, traffic);
                        gradient_pass(input_tile, error_tile, k, s, rows, cols, grad);
                        traffic.array_cycles(static_cast<uint64_t>(k * k) *
                                             static_cast<uint64_t>(rows * cols));
                    }
                }
            }
            store_gradient_block(grad, cmd, m0, maps, n0, min_int(kTn, in_c - n0), fm_write, traffic);
        }
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

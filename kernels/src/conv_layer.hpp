// Convolution + bias + leaky ReLU, tiled as in Zhang et al. 2015 / Chen et al. 2019:
//   for each Tr x Tc output tile, for each group of Tm output maps:
//     accumulators = bias; for each group of Tn input maps: load input tile + weight block, MAC;
//     requantize, saturate to the command's output width and store.
// Input tiles and weight blocks are ping-ponged (load group n+1 while computing group n); output
// tiles are ping-ponged too (store group m while computing group m+1).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "tile_buffers.hpp"
#include "tile_io.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

/// Tm x Tn multipliers per cycle: for every output pixel of the tile and every kernel tap, each of
/// the Tm adder trees sums Tn products into its accumulator. The int32 sum wraps (arith::mac), so
/// the tree order HLS chooses gives the same bits as any other order.
inline void conv_compute(const InputTile& in, const WeightBlock& weights, int kernel_size, int stride,
                         int rows, int cols, OutputTile& acc) {
    for (int ky = 0; ky < kernel_size; ++ky) {
        for (int kx = 0; kx < kernel_size; ++kx) {
            const int16_t* tap = weights[ky * kernel_size + kx];
            for (int r = 0; r < rows; ++r) {
                for (int c = 0; c < cols; ++c) {
#pragma HLS PIPELINE II = 1
#pragma HLS DEPENDENCE variable = acc inter false
                    int16_t x[kTn];
#pragma HLS ARRAY_PARTITION variable = x complete
                    for (int n = 0; n < kTn; ++n) x[n] = in[n][r * stride + ky][c * stride + kx];
                    int32_t* out = acc[r][c];
                    for (int m = 0; m < kTm; ++m) {
                        int32_t sum = out[m];
                        for (int n = 0; n < kTn; ++n) sum = arith::mac(sum, tap[n * kTm + m], x[n]);
                        out[m] = sum;
                    }
                }
            }
        }
    }
}

/// Pair mode (8-bit input and weights, conv_runs_in_pairs): the same Tm x Tn multipliers, each
/// computing two neighbouring output columns of one tap through one packed product
/// (arith::mac_pair), so the tile takes half the cycles. The second column of an odd tile's last
/// pair multiplies zeros and is not written. The accumulator tile sees two reads and two writes per
/// cycle: conv_layer splits it by column parity (cyclic factor 2).
inline void conv_compute_pairs(const InputTile& in, const WeightBlock& weights, int kernel_size, int stride,
                               int rows, int cols, OutputTile& acc) {
    for (int ky = 0; ky < kernel_size; ++ky) {
        for (int kx = 0; kx < kernel_size; ++kx) {
            const int16_t* tap = weights[ky * kernel_size + kx];
            for (int r = 0; r < rows; ++r) {
                for (int c = 0; c < cols; c += 2) {
#pragma HLS PIPELINE II = 1
#pragma HLS DEPENDENCE variable = acc inter false
                    const bool second = c + 1 < cols;
                    int16_t x0[kTn], x1[kTn];
#pragma HLS ARRAY_PARTITION variable = x0 complete
#pragma HLS ARRAY_PARTITION variable = x1 complete
                    for (int n = 0; n < kTn; ++n) {
                        x0[n] = in[n][r * stride + ky][c * stride + kx];
                        x1[n] =
                            second ? in[n][r * stride + ky][(c + 1) * stride + kx] : static_cast<int16_t>(0);
                    }
                    int32_t* out0 = acc[r][c];
                    int32_t* out1 = acc[r][second ? c + 1 : c];
                    for (int m = 0; m < kTm; ++m) {
                        int32_t sum0 = out0[m];
                        int32_t sum1 = second ? out1[m] : 0;
                        for (int n = 0; n < kTn; ++n)
                            arith::mac_pair(sum0, sum1, tap[n * kTm + m], x0[n], x1[n]);
                        out0[m] = sum0;
                        if (second) out1[m] = sum1;
                    }
                }
            }
        }
    }
}

/// Loads the input tile and weight block of input-map group `group` (Tn maps).
template <class Traffic>
void conv_load_group(const LayerCommand& cmd, const WordBeat* fm, const ByteBeat* fm8, const WordBeat* params,
                     int group, uint32_t weight_block_offset, InputWindow win, InputTile& tile,
                     WeightBlock& block, Traffic& traffic) {
    win.first_map = group * kTn;
    win.valid_maps = min_int(kTn, static_cast<int>(cmd.in_c) - win.first_map);
    load_input_tile(fm, fm8, win, 0, tile, traffic);
    const int weight_bits = static_cast<int>(cmd.weight_bits);
    const uint32_t block_words = arith::storage_words(
        static_cast<uint32_t>(kTm * kTn) * cmd.kernel_size * cmd.kernel_size, weight_bits);
    load_weight_block(params, weight_block_offset + static_cast<uint32_t>(group) * block_words,
                      static_cast<int>(cmd.kernel_size), weight_bits, block, traffic);
}

template <class Traffic>
void conv_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                const ByteBeat* fm8_read, ByteBeat* fm8_write, const WordBeat* params, Traffic& traffic) {
    InputTile input_tiles[2];
    WeightBlock weight_blocks[2];
    OutputTile output_tiles[2];
#pragma HLS ARRAY_PARTITION variable = input_tiles complete dim = 2
#pragma HLS ARRAY_PARTITION variable = weight_blocks complete dim = 3
#pragma HLS ARRAY_PARTITION variable = output_tiles complete dim = 4
#if FPGACNN_INT8_PAIRS  // pair mode: two columns read and written a cycle
#pragma HLS ARRAY_PARTITION variable = output_tiles cyclic factor = 2 dim = 3
#endif

    const int out_h = static_cast<int>(cmd.out_h);
    const int out_w = static_cast<int>(cmd.out_w);
    const int out_c = static_cast<int>(cmd.out_c);
    const int k = static_cast<int>(cmd.kernel_size);
    const int s = static_cast<int>(cmd.stride);
    const int pad = static_cast<int>(cmd.pad);
    const int tile_rows = static_cast<int>(cmd.tile_rows);
    const int tile_cols = static_cast<int>(cmd.tile_cols);
    const int input_groups = static_cast<int>(div_ceil(cmd.in_c, kTn));
#if FPGACNN_INT8_PAIRS  // without it (FPGACNN_INT8_PAIRS 0), 8-bit layers take one MAC per multiplier
    const bool pairs = conv_runs_in_pairs(cmd);
#endif
    // Blocks are word-aligned at either weight width (arith::storage_words), so a block row is
    // input_groups whole blocks of storage words.
    const uint32_t block_words =
        arith::storage_words(static_cast<uint32_t>(kTm * kTn) * cmd.kernel_size * cmd.kernel_size,
                             static_cast<int>(cmd.weight_bits));

    OutputWindow pending;  // the tile waiting in the other output buffer
    bool has_pending = false;
    int current = 0;

    for (int row0 = 0; row0 < out_h; row0 += tile_rows) {
        const int rows = min_int(tile_rows, out_h - row0);
        for (int col0 = 0; col0 < out_w; col0 += tile_cols) {
            const int cols = min_int(tile_cols, out_w - col0);
            InputWindow win;
            win.tensor_offset = cmd.input_offset;
            win.bits = static_cast<int>(cmd.input_bits);
            win.height = static_cast<int>(cmd.in_h);
            win.width = static_cast<int>(cmd.in_w);
            win.first_map = 0;
            win.valid_maps = 0;
            win.first_row = row0 * s - pad;
            win.first_col = col0 * s - pad;
            win.rows = (rows - 1) * s + k;
            win.cols = (cols - 1) * s + k;

            for (int map0 = 0; map0 < out_c; map0 += kTm) {
                OutputTile& acc = output_tiles[current];
                init_with_bias(params, cmd.bias_offset + static_cast<uint32_t>(map0), cmd.bias_shift, rows,
                               cols, acc, traffic);
                const uint32_t weight_row = cmd.weight_offset + static_cast<uint32_t>(map0 / kTm) *
                                                                    static_cast<uint32_t>(input_groups) *
                                                                    block_words;
                conv_load_group(cmd, fm_read, fm8_read, params, 0, weight_row, win, input_tiles[0],
                                weight_blocks[0], traffic);
                for (int group = 0; group < input_groups; ++group) {
                    const int ping = group & 1;
                    if (group + 1 < input_groups) {
                        conv_load_group(cmd, fm_read, fm8_read, params, group + 1, weight_row, win,
                                        input_tiles[1 - ping], weight_blocks[1 - ping], traffic);
                    }
#if FPGACNN_INT8_PAIRS
                    if (pairs) {
                        conv_compute_pairs(input_tiles[ping], weight_blocks[ping], k, s, rows, cols, acc);
                        continue;
                    }
#endif
                    conv_compute(input_tiles[ping], weight_blocks[ping], k, s, rows, cols, acc);
                }
                if (has_pending) {
                    store_output_tile(output_tiles[1 - current], pending, cmd.output_shift, cmd.leaky != 0,
                                      fm_write, fm8_write, traffic);
                }
                pending.tensor_offset = cmd.output_offset;
                pending.bits = static_cast<int>(cmd.output_bits);
                pending.height = out_h;
                pending.width = out_w;
                pending.first_map = map0;
                pending.maps = min_int(kTm, out_c - map0);
                pending.first_row = row0;
                pending.rows = rows;
                pending.first_col = col0;
                pending.cols = cols;
                has_pending = true;
                current = 1 - current;
            }
        }
    }
    if (has_pending) {
        store_output_tile(output_tiles[1 - current], pending, cmd.output_shift, cmd.leaky != 0, fm_write,
                          fm8_write, traffic);
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

// Convolution + bias + activation (linear, leaky or relu), tiled as in Zhang et al. 2015 / Chen et al. 2019:
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

/// One pass of the Tm x Tn array over a tile: which taps of the weight block it takes and where its
/// operands and sums sit. The forward conv is one pass (every tap, the input stepping by the stride);
/// a BP stride class (conv_train.hpp) is another: a sub-kernel of taps S apart, the error stepping by
/// one, the sums landing S apart in the dX tile. One loop nest, so one array, for both.
struct ArrayPass {
    int kernel_size;       // K of the weight block: tap (ty, tx) is block[(tap_y0 + tap_step * ty) * K + ...]
    int taps_y, taps_x;    // taps the pass iterates (0: the pass does nothing)
    int tap_y0, tap_x0;    // first tap's row and column in the block
    int tap_step;          // 1 (FP) or the stride (a BP class)
    int in_row0, in_col0;  // input tile position of output pixel (0, 0) at tap (0, 0)
    int in_step;           // input tile step between output pixels: the stride (FP) or 1 (BP)
    int out_row0, out_col0;  // accumulator position of output pixel (0, 0)
    int out_step;            // accumulator step between output pixels: 1 (FP) or the stride (BP)
    int rows, cols;          // output pixels of the pass
};

/// Pipelined cycles (II = 1) of one array pass: one per tap and output pixel. A Traffic policy receives
/// them (array_cycles), so a test can measure the array's utilization per phase.
inline uint64_t pass_cycles(const ArrayPass& p) {
    return static_cast<uint64_t>(p.taps_y) * static_cast<uint64_t>(p.taps_x) * static_cast<uint64_t>(p.rows) *
           static_cast<uint64_t>(p.cols);
}

/// The forward conv's pass over a rows x cols output tile.
inline ArrayPass forward_pass(int kernel_size, int stride, int rows, int cols) {
    ArrayPass p;
    p.kernel_size = kernel_size, p.taps_y = kernel_size, p.taps_x = kernel_size;
    p.tap_y0 = 0, p.tap_x0 = 0, p.tap_step = 1;
    p.in_row0 = 0, p.in_col0 = 0, p.in_step = stride;
    p.out_row0 = 0, p.out_col0 = 0, p.out_step = 1;
    p.rows = rows, p.cols = cols;
    return p;
}

/// Tm x Tn multipliers per cycle: for every output pixel of the pass and every tap, each of the Tm
/// adder trees sums Tn products into its accumulator. The int32 sum wraps (arith::mac), so the tree
/// order HLS chooses gives the same bits as any other order.
inline void array_pass(const InputTile& in, const WeightBlock& weights, const ArrayPass& p, OutputTile& acc) {
    for (int ty = 0; ty < p.taps_y; ++ty) {
        for (int tx = 0; tx < p.taps_x; ++tx) {
            const int16_t* tap =
                weights[(p.tap_y0 + p.tap_step * ty) * p.kernel_size + p.tap_x0 + p.tap_step * tx];
            for (int r = 0; r < p.rows; ++r) {
                for (int c = 0; c < p.cols; ++c) {
#pragma HLS PIPELINE II = 1
#pragma HLS DEPENDENCE variable = acc inter false
                    int16_t x[kTn];
#pragma HLS ARRAY_PARTITION variable = x complete
                    for (int n = 0; n < kTn; ++n)
                        x[n] = in[n][p.in_row0 + r * p.in_step + ty][p.in_col0 + c * p.in_step + tx];
                    int32_t* out = acc[p.out_row0 + r * p.out_step][p.out_col0 + c * p.out_step];
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

/// The forward conv of one tile: one pass over every tap.
inline void conv_compute(const InputTile& in, const WeightBlock& weights, int kernel_size, int stride,
                         int rows, int cols, OutputTile& acc) {
    array_pass(in, weights, forward_pass(kernel_size, stride, rows, cols), acc);
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

/// Loads the input tile of input-map group `group` (Tn of the `channels` maps the window's tensor has)
/// and the weight block at `block_offset`. Shared by FP and BP (whose input maps are the error's).
template <class Traffic>
void load_group(const WordBeat* fm, const ByteBeat* fm8, const WordBeat* params, int channels,
                InputWindow win, int group, uint32_t block_offset, int kernel_size, int weight_bits,
                InputTile& tile, WeightBlock& block, Traffic& traffic) {
    win.first_map = group * kTn;
    win.valid_maps = min_int(kTn, channels - win.first_map);
    load_input_tile(fm, fm8, win, 0, tile, traffic);
    load_weight_block(params, block_offset, kernel_size, weight_bits, block, traffic);
}

/// Loads the input tile and weight block of input-map group `group` (Tn maps).
template <class Traffic>
void conv_load_group(const LayerCommand& cmd, const WordBeat* fm, const ByteBeat* fm8, const WordBeat* params,
                     int group, uint32_t weight_block_offset, InputWindow win, InputTile& tile,
                     WeightBlock& block, Traffic& traffic) {
    const int weight_bits = static_cast<int>(cmd.weight_bits);
    const uint32_t block_words = arith::storage_words(
        static_cast<uint32_t>(kTm * kTn) * cmd.kernel_size * cmd.kernel_size, weight_bits);
    load_group(fm, fm8, params, static_cast<int>(cmd.in_c), win, group,
               weight_block_offset + static_cast<uint32_t>(group) * block_words,
               static_cast<int>(cmd.kernel_size), weight_bits, tile, block, traffic);
}

template <class Traffic>
void conv_layer(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                const ByteBeat* fm8_read, ByteBeat* fm8_write, const WordBeat* params,
                InputTile input_tiles[2], WeightBlock weight_blocks[2], OutputTile output_tiles[2],
                Traffic& traffic) {
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
            // Maps are set per input group (load_group).
            const InputWindow win = tile_input_window(cmd.input_offset, static_cast<int>(cmd.input_bits),
                                                      static_cast<int>(cmd.in_h), static_cast<int>(cmd.in_w),
                                                      0, 0, row0, rows, col0, cols, k, s, pad);

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
                        traffic.array_cycles(pass_cycles(forward_pass(k, s, rows, (cols + 1) / 2)));
                        continue;
                    }
#endif
                    conv_compute(input_tiles[ping], weight_blocks[ping], k, s, rows, cols, acc);
                    traffic.array_cycles(pass_cycles(forward_pass(k, s, rows, cols)));
                }
                if (has_pending) {
                    store_output_tile(output_tiles[1 - current], pending, cmd.output_shift, cmd.leaky,
                                      fm_write, fm8_write, traffic);
                }
                pending = output_window(cmd.output_offset, static_cast<int>(cmd.output_bits), out_h, out_w,
                                        map0, min_int(kTm, out_c - map0), row0, rows, col0, cols);
                has_pending = true;
                current = 1 - current;
            }
        }
    }
    if (has_pending) {
        store_output_tile(output_tiles[1 - current], pending, cmd.output_shift, cmd.leaky, fm_write,
                          fm8_write, traffic);
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

// Moving tiles between DDR and the on-chip buffers. Every transfer is a run of consecutive elements
// (one AXI burst): a row segment of one map for feature maps, a whole (Tm, Tn) block for weights. A
// feature map travels at its storage width (arith::fm_element_bytes): 16-bit tensors through the
// word-wide ports (fm_read / fm_write), 8-bit ones through the byte-wide ports (fm8_read / fm8_write)
// onto the same arena; on chip both are int16.
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "port_io.hpp"
#include "tile_buffers.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

/// Where an input tile sits in its CHW tensor. Rows/columns may start before 0 or run past the
/// edge: those positions get `pad_value` (0 for conv padding, -32768 for maxpool so that taps
/// outside the image never win, which is darknet's "skip").
struct InputWindow {
    uint32_t tensor_offset;  // first element of the tensor in the arena, in elements of its width
    int bits;                // storage width: arith::kDataBits or kNarrowBits
    int height;              // tensor height and width
    int width;
    int first_map;   // first of the Tn maps
    int valid_maps;  // maps first_map.. that exist (the rest of the Tn lanes are zero)
    int first_row;   // tensor row of tile row 0 (may be negative)
    int first_col;
    int rows;  // tile extent including the halo
    int cols;
};

/// The input window of the rows x cols output tile at (row0, col0) of a layer with window K, stride S
/// and pad P (conv, maxpool, WG's moving operand): the tile plus its halo; maps first_map.. (valid_maps).
inline InputWindow tile_input_window(uint32_t tensor_offset, int bits, int height, int width, int first_map,
                                     int valid_maps, int row0, int rows, int col0, int cols, int k, int s,
                                     int pad) {
    InputWindow win;
    win.tensor_offset = tensor_offset;
    win.bits = bits;
    win.height = height;
    win.width = width;
    win.first_map = first_map;
    win.valid_maps = valid_maps;
    win.first_row = row0 * s - pad;
    win.first_col = col0 * s - pad;
    win.rows = (rows - 1) * s + k;
    win.cols = (cols - 1) * s + k;
    return win;
}

template <class Traffic>
void load_input_tile(const WordBeat* fm, const ByteBeat* fm8, const InputWindow& win, int16_t pad_value,
                     InputTile& tile, Traffic& traffic) {
    const uint32_t plane = static_cast<uint32_t>(win.height) * static_cast<uint32_t>(win.width);
    const int col_begin = max_int(win.first_col, 0);
    const int col_end = min_int(win.first_col + win.cols, win.width);
    for (int n = 0; n < kTn; ++n) {
        const bool map_exists = n < win.valid_maps;
        const int16_t fill = map_exists ? pad_value : static_cast<int16_t>(0);
        for (int r = 0; r < win.rows; ++r) {
            const int y = win.first_row + r;
            const bool row_exists = map_exists && y >= 0 && y < win.height && col_end > col_begin;
            int16_t* line = tile[n][r];
            for (int c = 0; c < win.cols; ++c) {
#pragma HLS PIPELINE II = 1
                line[c] = fill;
            }
            if (!row_exists) continue;
            const uint32_t source = win.tensor_offset + static_cast<uint32_t>(win.first_map + n) * plane +
                                    static_cast<uint32_t>(y) * static_cast<uint32_t>(win.width) +
                                    static_cast<uint32_t>(col_begin);
            const int length = col_end - col_begin;
            int16_t* target = line + (col_begin - win.first_col);
            if (win.bits == arith::kNarrowBits) {
                read_run<int8_t>(fm8, source, length, target);
            } else {
                read_run<int16_t>(fm, source, length, target);
            }
            traffic.fm_read(static_cast<uint32_t>(length), arith::fm_element_bytes(win.bits));
        }
    }
}

/// One (Tm, Tn) weight block of the layer's K: Tm*Tn*K*K elements in one burst of
/// arith::storage_words(elements, weight_bits) consecutive words. 16-bit weights are one word each;
/// 8-bit weights arrive two per word (arith::kNarrowWeightsPerWord) and are sign-extended into the
/// same int16 lanes, so conv_compute sees the same block at either width. A beat brings up to
/// kPortElements words, 2 x kPortElements weights at 8 bits: a run of weights from the place (tap,
/// lane) of its first one, wrapping once into the next tap at most (a run is never longer than a
/// tap's Tm*Tn lanes). Counters instead of a division keep one beat per cycle.
///
/// Area: the run is rotated once (weight j to place (lane + j) mod kRunMax), so that each lane takes
/// its weight from a fixed place of the rotated run (land_weight_lane) instead of choosing among
/// every weight of the beat: the wide ports' multiplexers per lane go (the RTL twin lands a beat the
/// same way, fpgacnn_core.sv).
static const int kWeightRunMax = 2 * kPortElements;  // weights a beat at most
static_assert((kWeightRunMax & (kWeightRunMax - 1)) == 0, "the rotation is taken modulo a power of two");

/// Lane `l`'s share of a rotated run that starts at lane `lane` of tap `tap` and ends before lane
/// `end` (end - kWeightLanes of the next tap when it wraps): its weight, if the run has one for it,
/// from a place of `rotated` fixed by l. Only lanes l < kWeightRunMax - 1 can take one from the next
/// tap (the run ends before lane + kWeightRunMax).
inline void land_weight_lane(int l, int tap, int lane, int end, const int16_t* rotated, WeightBlock& block) {
    const bool wraps = l < kWeightRunMax - 1 && l + kWeightLanes < end;
    if (wraps)
        block[tap + 1][l] = rotated[(l + kWeightLanes) % kWeightRunMax];
    else if (l >= lane && l < end)
        block[tap][l] = rotated[l % kWeightRunMax];
}

template <class Traffic>
void load_weight_block(const WordBeat* params, uint32_t block_offset, int kernel_size, int weight_bits,
                       WeightBlock& block, Traffic& traffic) {
    static const int kRunMax = kWeightRunMax;
    static_assert(kRunMax - 1 <= kWeightLanes, "a beat's weights wrap into the next tap at most once");
    const bool narrow = weight_bits == arith::kNarrowBits;
    const int elements = kernel_size * kernel_size * kWeightLanes;
    const int words = static_cast<int>(arith::storage_words(static_cast<uint32_t>(elements), weight_bits));
    const BeatSpan span = beat_span(block_offset, words);
    int tap = 0;  // place of the beat's first weight
    int lane = 0;
    for (int b = 0; b < span.beats; ++b) {
#pragma HLS PIPELINE II = 1
        const WordBeat beat = read_beat<int16_t>(params, span.first_beat + static_cast<uint32_t>(b),
                                                 run_lane_begin(span, b), run_lane_end(span, b, words));
        int16_t run[kRunMax] = {};  // the beat's weights in block order
#pragma HLS ARRAY_PARTITION variable = run complete
        int count = 0;
        for (int slot = 0; slot < kPortElements; ++slot) {
#pragma HLS UNROLL
            const int w = run_element(span, b, slot);
            if (w < 0 || w >= words) continue;
            const int16_t word = beat_lane(beat, slot);
            if (narrow) {
                run[count] = arith::unpack_narrow(word, 0);
                run[count + 1] = arith::unpack_narrow(word, 1);
                count += 2 * w + 1 < elements ? 2 : 1;  // an odd block's last word has one weight
            } else {
                run[count] = word;
                count += 1;
            }
        }
        int16_t rotated[kRunMax];
#pragma HLS ARRAY_PARTITION variable = rotated complete
        for (int p = 0; p < kRunMax; ++p) {
#pragma HLS UNROLL
            rotated[p] = run[(p - lane) & (kRunMax - 1)];
        }
        const int end = lane + count;
#if defined(__SYNTHESIS__) || defined(FPGACNN_KERNEL_EVERY_WEIGHT_LANE)
        for (int l = 0; l < kWeightLanes; ++l) {
#pragma HLS UNROLL
            land_weight_lane(l, tap, lane, end, rotated, block);
        }
#else
        // Natively only the run's lanes (the others' land_weight_lane does nothing): a loop over
        // every lane per beat would slow the emu device's weight loads Tm*Tn-fold. The 64-bit test
        // builds (test_kernel_port64, test_kernel_rtl64) define FPGACNN_KERNEL_EVERY_WEIGHT_LANE and
        // run the synthesised loop.
        for (int j = 0; j < count; ++j) {
            const int l = lane + j;
            land_weight_lane(l >= kWeightLanes ? l - kWeightLanes : l, tap, lane, end, rotated, block);
        }
#endif
        const bool wraps = lane + count >= kWeightLanes;
        tap = wraps ? tap + 1 : tap;
        lane = wraps ? lane + count - kWeightLanes : lane + count;
    }
    traffic.param_read(static_cast<uint32_t>(words));
}

/// Accumulators start at the bias, aligned to the accumulator's exponent.
template <class Traffic>
void init_with_bias(const WordBeat* params, uint32_t bias_offset, int bias_shift, int rows, int cols,
                    OutputTile& acc, Traffic& traffic) {
    int16_t bias[kTm];
#pragma HLS ARRAY_PARTITION variable = bias complete
    read_run<int16_t>(params, bias_offset, kTm, bias);
    int32_t aligned[kTm];
#pragma HLS ARRAY_PARTITION variable = aligned complete
    for (int m = 0; m < kTm; ++m) {
#pragma HLS UNROLL
        aligned[m] = arith::align_bias(bias[m], bias_shift);
    }
    traffic.param_read(static_cast<uint32_t>(kTm));
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
#pragma HLS PIPELINE II = 1
            for (int m = 0; m < kTm; ++m) acc[r][c][m] = aligned[m];
        }
    }
}

/// BP's accumulators start at zero: the input delta has no bias.
inline void clear_tile(int rows, int cols, OutputTile& acc) {
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
#pragma HLS PIPELINE II = 1
            for (int m = 0; m < kTm; ++m) acc[r][c][m] = 0;
        }
    }
}

/// WG's sums start at zero before the first image of the batch.
inline void clear_gradient_block(int kernel_size, GradientBlock& grad) {
    for (int tap = 0; tap < kernel_size * kernel_size; ++tap) {
#pragma HLS PIPELINE II = 1
        for (int lane = 0; lane < kWeightLanes; ++lane) grad[tap][lane] = 0;
    }
}

/// Where an output tile goes in its CHW tensor.
struct OutputWindow {
    uint32_t tensor_offset;  // in elements of the tensor's width, like InputWindow's
    int bits;                // storage width; the values are saturated to it
    int height;
    int width;
    int first_map;
    int maps;  // valid lanes (<= Tm)
    int first_row;
    int rows;
    int first_col;
    int cols;
};

/// The window of `maps` maps from first_map, rows x cols at (first_row, first_col), of a CHW tensor.
inline OutputWindow output_window(uint32_t tensor_offset, int bits, int height, int width, int first_map,
                                  int maps, int first_row, int rows, int first_col, int cols) {
    OutputWindow w;
    w.tensor_offset = tensor_offset;
    w.bits = bits;
    w.height = height;
    w.width = width;
    w.first_map = first_map;
    w.maps = maps;
    w.first_row = first_row;
    w.rows = rows;
    w.first_col = first_col;
    w.cols = cols;
    return w;
}

/// One map row of an accumulator tile, requantized one element a cycle (one requantizer, as the RTL
/// twin's store) into a line, then written as one burst of elements of either width.
template <class Element>
void write_row(const OutputTile& acc, int r, int m, int cols, int shift, uint32_t activation, int bits,
               typename PortData<Element, kPortElements>::type* port, uint32_t target) {
    int16_t line[kTc];
    for (int c = 0; c < cols; ++c) {
#pragma HLS PIPELINE II = 1
        line[c] = arith::requantize_to_width(acc[r][c][m], shift, activation, bits);
    }
    write_run<Element>(line, cols, port, target);
}

/// Requantizes (rounding, activation, saturation to the window's width in one step) and writes one burst
/// per map row.
template <class Traffic>
void store_output_tile(const OutputTile& acc, const OutputWindow& win, int shift, uint32_t activation,
                       WordBeat* fm, ByteBeat* fm8, Traffic& traffic) {
    const uint32_t plane = static_cast<uint32_t>(win.height) * static_cast<uint32_t>(win.width);
    for (int m = 0; m < win.maps; ++m) {
        for (int r = 0; r < win.rows; ++r) {
            const uint32_t target =
                win.tensor_offset + static_cast<uint32_t>(win.first_map + m) * plane +
                static_cast<uint32_t>(win.first_row + r) * static_cast<uint32_t>(win.width) +
                static_cast<uint32_t>(win.first_col);
            if (win.bits == arith::kNarrowBits) {
                write_row<int8_t>(acc, r, m, win.cols, shift, activation, win.bits, fm8, target);
            } else {
                write_row<int16_t>(acc, r, m, win.cols, shift, activation, win.bits, fm, target);
            }
            traffic.fm_write(static_cast<uint32_t>(win.cols), arith::fm_element_bytes(win.bits));
        }
    }
}

/// WG's error tile: win.maps (<= Tm) 16-bit error maps, rows x cols at (first_row, first_col), one
/// burst per map row, into the accumulator buffer's [r][c][m] lanes (map m feeds the array's row m).
template <class Traffic>
void load_error_tile(const WordBeat* fm, const OutputWindow& win, OutputTile& tile, Traffic& traffic) {
    const uint32_t plane = static_cast<uint32_t>(win.height) * static_cast<uint32_t>(win.width);
    for (int m = 0; m < kTm; ++m) {
        for (int r = 0; r < win.rows; ++r) {
            int16_t line[kTc];
            if (m < win.maps) {
                const uint32_t source =
                    win.tensor_offset + static_cast<uint32_t>(win.first_map + m) * plane +
                    static_cast<uint32_t>(win.first_row + r) * static_cast<uint32_t>(win.width) +
                    static_cast<uint32_t>(win.first_col);
                read_run<int16_t>(fm, source, win.cols, line);
                traffic.fm_read(static_cast<uint32_t>(win.cols), arith::fm_element_bytes(arith::kDataBits));
            }
            for (int c = 0; c < win.cols; ++c) {
#pragma HLS PIPELINE II = 1
                tile[r][c][m] = m < win.maps ? line[c] : 0;  // lanes past M multiply zeros, never stored
            }
        }
    }
}

/// WG's result for output maps m0.. (maps of them) and input maps n0.. (in_maps): rounded and
/// saturated (arith::requantize_gradient) into darknet's [out_c][in_c][K][K] order at output_offset,
/// where one output map's in_maps x K x K values are adjacent: one burst per output map.
template <class Traffic>
void store_gradient_block(const GradientBlock& grad, const LayerCommand& cmd, int m0, int maps, int n0,
                          int in_maps, WordBeat* fm, Traffic& traffic) {
    const int k = static_cast<int>(cmd.kernel_size);
    const int taps = k * k;
    for (int m = 0; m < maps; ++m) {
        int16_t line[kTn * kMaxK * kMaxK];
        for (int n = 0; n < in_maps; ++n) {
            for (int tap = 0; tap < taps; ++tap) {
#pragma HLS PIPELINE II = 1
                line[n * taps + tap] = arith::requantize_gradient(grad[tap][n * kTm + m], cmd.output_shift);
            }
        }
        const uint32_t target =
            cmd.output_offset + (static_cast<uint32_t>(m0 + m) * cmd.in_c + static_cast<uint32_t>(n0)) *
                                    static_cast<uint32_t>(taps);
        write_run<int16_t>(line, in_maps * taps, fm, target);
        traffic.fm_write(static_cast<uint32_t>(in_maps * taps), arith::fm_element_bytes(arith::kDataBits));
    }
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

// One call = one layer: checks the command, then dispatches on its op. Shared by the HLS top
// function (no counting) and the native entry point (counting AXI traffic for the emu device).
#pragma once

#include <stdint.h>

#include "conv_layer.hpp"
#include "conv_train.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "pool_layer.hpp"
#include "port_io.hpp"
#include "reorg_layer.hpp"
#include "upsample_shortcut_layer.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

/// Writes the build's fingerprint: one burst of kFingerprintWords at output_offset.
template <class Traffic>
void identify(const LayerCommand& cmd, WordBeat* fm_write, Traffic& traffic) {
    int16_t words[kFingerprintWords];
    fingerprint_words(words);
    write_run<int16_t>(words, kFingerprintWords, fm_write, cmd.output_offset);
    traffic.fm_write(kFingerprintWords, arith::fm_element_bytes(arith::kDataBits));
}

template <class Traffic>
CommandCheck run_command(const LayerCommand& cmd, const WordBeat* fm_read, WordBeat* fm_write,
                         const ByteBeat* fm8_read, ByteBeat* fm8_write, const WordBeat* params,
                         Traffic& traffic) {
    const CommandCheck check = check_command(cmd);
    if (check != kCommandOk) return check;
    // One set of the conv's buffers and one array for FP, BP and WG (the seed's point: one array, three
    // dataflows): declared here, handed to each phase; HLS may instantiate array_pass once only.
    // (Natively they are this call's stack, as they were conv_layer's.)
    InputTile input_tiles[2];
    WeightBlock weight_blocks[2];
    OutputTile output_tiles[2];
#pragma HLS ARRAY_PARTITION variable = input_tiles complete dim = 2
#pragma HLS ARRAY_PARTITION variable = weight_blocks complete dim = 3
#pragma HLS ARRAY_PARTITION variable = output_tiles complete dim = 4
#if FPGACNN_INT8_PAIRS  // pair mode: two columns read and written a cycle
#pragma HLS ARRAY_PARTITION variable = output_tiles cyclic factor = 2 dim = 3
#endif
#pragma HLS ALLOCATION function instances = array_pass limit = 1
    if (cmd.op == kOpIdentify) {
        identify(cmd, fm_write, traffic);
    } else if (cmd.op == kOpConv) {
        conv_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, params, input_tiles, weight_blocks,
                   output_tiles, traffic);
    } else if (cmd.op == kOpConvBackward) {
        conv_backward_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, params, input_tiles, weight_blocks,
                            output_tiles, traffic);
    } else if (cmd.op == kOpWeightGradient) {
        weight_gradient_layer(cmd, fm_read, fm_write, fm8_read, input_tiles, output_tiles, traffic);
    } else if (cmd.op == kOpMaxPool) {
        pool_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, traffic);
    } else if (kUpsampleShortcut && cmd.op == kOpUpsample) {  // check_command refused it without the ops
        upsample_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, traffic);
    } else if (kUpsampleShortcut && cmd.op == kOpShortcut) {
        shortcut_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, traffic);
    } else {
        reorg_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, traffic);
    }
    return kCommandOk;
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

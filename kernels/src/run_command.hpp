// One call = one layer: checks the command, then dispatches on its op. Shared by the HLS top
// function (no counting) and the native entry point (counting AXI traffic for the emu device).
#pragma once

#include <stdint.h>

#include "conv_layer.hpp"
#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "pool_layer.hpp"
#include "port_io.hpp"
#include "reorg_layer.hpp"

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
    if (cmd.op == kOpIdentify) {
        identify(cmd, fm_write, traffic);
    } else if (cmd.op == kOpConv) {
        conv_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, params, traffic);
    } else if (cmd.op == kOpMaxPool) {
        pool_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, traffic);
    } else {
        reorg_layer(cmd, fm_read, fm_write, fm8_read, fm8_write, traffic);
    }
    return kCommandOk;
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

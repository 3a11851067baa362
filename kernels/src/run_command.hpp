// One call = one layer: checks the command, then dispatches on its op. Shared by the HLS top
// function (no counting) and the native entry point (counting AXI traffic for the emu device).
#pragma once

#include <stdint.h>

#include "conv_layer.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "pool_layer.hpp"
#include "reorg_layer.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

template <class Traffic>
CommandCheck run_command(const LayerCommand& cmd, const int16_t* fm_read, int16_t* fm_write,
                         const int16_t* params, Traffic& traffic) {
    const CommandCheck check = check_command(cmd);
    if (check != kCommandOk) return check;
    if (cmd.op == kOpConv) {
        conv_layer(cmd, fm_read, fm_write, params, traffic);
    } else if (cmd.op == kOpMaxPool) {
        pool_layer(cmd, fm_read, fm_write, traffic);
    } else {
        reorg_layer(cmd, fm_read, fm_write, traffic);
    }
    return kCommandOk;
}

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

// The accelerator: one HLS top function that runs one layer per call, and the native entry point the
// emu device uses (same code, plus counters of the AXI traffic it would generate).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/kernel/port_beat.hpp"

namespace fpgacnn {
namespace kernel {

/// AXI traffic of one call: bursts and bytes on each master port.
struct TrafficCounters {
    uint64_t fm_read_bursts;
    uint64_t fm_read_bytes;
    uint64_t fm_write_bursts;
    uint64_t fm_write_bytes;
    uint64_t param_read_bursts;
    uint64_t param_read_bytes;
};

/// Runs one layer natively. `fm_read` and `fm_write` are both the feature-map arena base (two ports
/// onto one buffer, as in hardware; the byte-wide ports of 8-bit tensors start at the same address);
/// `params` is the parameter buffer base. Returns the command check
/// (kCommandOk when the layer ran; otherwise nothing was read or written). `counters` may be null.
CommandCheck run_layer(const LayerCommand& command, const int16_t* fm_read, int16_t* fm_write,
                       const int16_t* params, TrafficCounters* counters);

}  // namespace kernel
}  // namespace fpgacnn

/// The HLS top function (kernels/src/accel_top.cpp). Scalars first, in LayerCommand order, then the
/// AXI master pointers (the word-wide ports, then contract 5's byte-wide feature-map ports, last so the
/// older registers kept their offsets): this order fixes the AXI-Lite register map (register_map.hpp).
/// The masters move whole beats (port_beat.hpp: one element a beat at the reference FPGACNN_PORT_BITS
/// of 16, kPortElements in a wider build); every pointer is the base of the arena or parameter buffer,
/// and element i of either width is lane i % kPortElements of beat i / kPortElements.
extern "C" void fpgacnn_accel(
    uint32_t op, uint32_t input_offset, uint32_t output_offset, uint32_t weight_offset, uint32_t bias_offset,
    uint32_t in_c, uint32_t in_h, uint32_t in_w, uint32_t out_c, uint32_t out_h, uint32_t out_w,
    uint32_t kernel_size, uint32_t stride, uint32_t pad, uint32_t leaky, int32_t bias_shift,
    int32_t output_shift, uint32_t tile_rows, uint32_t tile_cols, uint32_t output_bits, uint32_t weight_bits,
    uint32_t input_bits, uint32_t error_offset, uint32_t batch, const fpgacnn::kernel::WordBeat* fm_read,
    fpgacnn::kernel::WordBeat* fm_write, const fpgacnn::kernel::WordBeat* params,
    const fpgacnn::kernel::ByteBeat* fm8_read, fpgacnn::kernel::ByteBeat* fm8_write);

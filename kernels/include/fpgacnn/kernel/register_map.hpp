// The accelerator's AXI-Lite register map, as Vitis HLS / Vivado HLS lay it out for the top function
// fpgacnn_accel (accel.hpp): block-level control at 0x00-0x0C, then one register per argument in
// argument order, 8 bytes apart for 32-bit scalars, and for the five AXI master base addresses
// 12 bytes apart (64-bit addresses: low word, high word, reserved) or 8 bytes apart (32-bit
// addresses, Zynq-7000 builds with m_axi_addr64=false). The uio driver writes these offsets; docs
// /kernel.md lists them; tests/kernel checks them against the top function's signature. After
// synthesis, compare with the generated x<top>_hw.h (scripts print it).
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/layer_command.hpp"

namespace fpgacnn {
namespace kernel {
/// Byte offsets of the kernel's AXI-Lite registers (the layout described at the top of this file).
namespace regs {

/// Block-level control (ap_ctrl_hs).
static const uint32_t kControl = 0x00;
static const uint32_t kGlobalInterruptEnable = 0x04;  ///< GIE: bit 0 enables the interrupt output
static const uint32_t kInterruptEnable = 0x08;        ///< IER: the events that interrupt (kInterrupt*)
static const uint32_t kInterruptStatus = 0x0C;        ///< ISR: events seen; write 1 to a bit to clear it

static const uint32_t kApStart = 1u << 0;      ///< write 1 to start; reads 1 until the IP accepts
static const uint32_t kApDone = 1u << 1;       ///< set when the call finished; cleared on read
static const uint32_t kApIdle = 1u << 2;       ///< no call in progress
static const uint32_t kApReady = 1u << 3;      ///< ready for new inputs
static const uint32_t kAutoRestart = 1u << 7;  ///< restart after each call (the drivers leave it 0)

static const uint32_t kInterruptDone = 1u << 0;   ///< IER / ISR bit: ap_done
static const uint32_t kInterruptReady = 1u << 1;  ///< IER / ISR bit: ap_ready

/// One 32-bit register per LayerCommand field, in declaration order.
static const uint32_t kFirstArgument = 0x10;
static const uint32_t kScalarStride = 0x08;  ///< bytes from one scalar argument's register to the next
static const uint32_t kOp = 0x10;            ///< LayerCommand::op
static const uint32_t kInputOffset = 0x18;   ///< LayerCommand::input_offset
static const uint32_t kOutputOffset = 0x20;  ///< LayerCommand::output_offset
static const uint32_t kWeightOffset = 0x28;  ///< LayerCommand::weight_offset
static const uint32_t kBiasOffset = 0x30;    ///< LayerCommand::bias_offset
static const uint32_t kInC = 0x38;           ///< LayerCommand::in_c
static const uint32_t kInH = 0x40;           ///< LayerCommand::in_h
static const uint32_t kInW = 0x48;           ///< LayerCommand::in_w
static const uint32_t kOutC = 0x50;          ///< LayerCommand::out_c
static const uint32_t kOutH = 0x58;          ///< LayerCommand::out_h
static const uint32_t kOutW = 0x60;          ///< LayerCommand::out_w
static const uint32_t kKernelSize = 0x68;    ///< LayerCommand::kernel_size
static const uint32_t kStride = 0x70;        ///< LayerCommand::stride
static const uint32_t kPad = 0x78;           ///< LayerCommand::pad
static const uint32_t kLeaky = 0x80;         ///< LayerCommand::leaky
static const uint32_t kBiasShift = 0x88;     ///< LayerCommand::bias_shift
static const uint32_t kOutputShift = 0x90;   ///< LayerCommand::output_shift
static const uint32_t kTileRows = 0x98;      ///< LayerCommand::tile_rows
static const uint32_t kTileCols = 0xA0;      ///< LayerCommand::tile_cols
static const uint32_t kOutputBits = 0xA8;    ///< LayerCommand::output_bits
static const uint32_t kWeightBits = 0xB0;    ///< LayerCommand::weight_bits
static const uint32_t kInputBits = 0xB8;     ///< LayerCommand::input_bits
static const uint32_t kErrorOffset = 0xC0;   ///< LayerCommand::error_offset (contract 6)
static const uint32_t kBatch = 0xC8;         ///< LayerCommand::batch (contract 6)

/// The command registers in LayerCommand order (word i of a command goes to kCommandOffsets[i]).
static const uint32_t kCommandOffsets[kCommandWords] = {
    kOp,       kInputOffset, kOutputOffset, kWeightOffset, kBiasOffset,  kInC,
    kInH,      kInW,         kOutC,         kOutH,         kOutW,        kKernelSize,
    kStride,   kPad,         kLeaky,        kBiasShift,    kOutputShift, kTileRows,
    kTileCols, kOutputBits,  kWeightBits,   kInputBits,    kErrorOffset, kBatch};

/// Argument names as in the top function's signature (docs and the signature test use them).
static const char* const kCommandNames[kCommandWords] = {
    "op",        "input_offset", "output_offset", "weight_offset", "bias_offset",  "in_c",
    "in_h",      "in_w",         "out_c",         "out_h",         "out_w",        "kernel_size",
    "stride",    "pad",          "leaky",         "bias_shift",    "output_shift", "tile_rows",
    "tile_cols", "output_bits",  "weight_bits",   "input_bits",    "error_offset", "batch"};

/// The five AXI master base addresses follow the scalars: the word-wide ports, then (contract 5) the
/// byte-wide feature-map ports of 8-bit tensors. Every feature-map port gets the arena's address.
enum Pointer { kFmRead = 0, kFmWrite = 1, kParams = 2, kFm8Read = 3, kFm8Write = 4 };
static const int kPointerCount = 5;  ///< AXI master base-address registers (Pointer values 0..4)
/// The masters' names as in the top function's signature, in Pointer order.
static const char* const kPointerNames[kPointerCount] = {"fm_read", "fm_write", "params", "fm8_read",
                                                         "fm8_write"};
static const uint32_t kFirstPointer = kFirstArgument + kScalarStride * kCommandWords;  ///< 0xD0

/// Offset of a base-address register: the low word for 64-bit addresses (high word at +4).
inline uint32_t pointer_offset(Pointer pointer, bool address64) {
    return kFirstPointer + (address64 ? 0x0Cu : 0x08u) * static_cast<uint32_t>(pointer);
}

/// Bytes of register space the IP decodes (rounded to a power of two).
inline uint32_t register_space_bytes(bool address64) {
    const uint32_t end = pointer_offset(kFm8Write, address64) + (address64 ? 0x0Cu : 0x08u);
    uint32_t size = 1;
    while (size < end) size <<= 1;
    return size;
}

/// The command as register values, in kCommandOffsets order.
inline void command_words(const LayerCommand& c, uint32_t words[kCommandWords]) {
    words[0] = c.op;
    words[1] = c.input_offset;
    words[2] = c.output_offset;
    words[3] = c.weight_offset;
    words[4] = c.bias_offset;
    words[5] = c.in_c;
    words[6] = c.in_h;
    words[7] = c.in_w;
    words[8] = c.out_c;
    words[9] = c.out_h;
    words[10] = c.out_w;
    words[11] = c.kernel_size;
    words[12] = c.stride;
    words[13] = c.pad;
    words[14] = c.leaky;
    words[15] = static_cast<uint32_t>(c.bias_shift);
    words[16] = static_cast<uint32_t>(c.output_shift);
    words[17] = c.tile_rows;
    words[18] = c.tile_cols;
    words[19] = c.output_bits;
    words[20] = c.weight_bits;
    words[21] = c.input_bits;
    words[22] = c.error_offset;
    words[23] = c.batch;
}

/// The inverse of command_words (drivers that read a command back, tests).
inline LayerCommand command_from_words(const uint32_t words[kCommandWords]) {
    LayerCommand c;
    c.op = words[0];
    c.input_offset = words[1];
    c.output_offset = words[2];
    c.weight_offset = words[3];
    c.bias_offset = words[4];
    c.in_c = words[5];
    c.in_h = words[6];
    c.in_w = words[7];
    c.out_c = words[8];
    c.out_h = words[9];
    c.out_w = words[10];
    c.kernel_size = words[11];
    c.stride = words[12];
    c.pad = words[13];
    c.leaky = words[14];
    c.bias_shift = static_cast<int32_t>(words[15]);
    c.output_shift = static_cast<int32_t>(words[16]);
    c.tile_rows = words[17];
    c.tile_cols = words[18];
    c.output_bits = words[19];
    c.weight_bits = words[20];
    c.input_bits = words[21];
    c.error_offset = words[22];
    c.batch = words[23];
    return c;
}

}  // namespace regs
}  // namespace kernel
}  // namespace fpgacnn

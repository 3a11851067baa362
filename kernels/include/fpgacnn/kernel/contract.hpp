// The hardware contract: the facts that the kernel, the planner, the drivers, the CPU int16
// backend, the quantized model file and the kernel fingerprint must agree on, each stated once here
// (the build's maxima are in config.hpp). Plain C++ on <stdint.h>: Vitis HLS reads it unchanged.
#pragma once

#include <stdint.h>

namespace fpgacnn {
namespace arith {

/// Version of the arithmetic contract (docs/arithmetic.md). Bumped whenever a rule changes;
/// recorded in quantized model files (fpgacnn-quantize) and in bitstreams (the fingerprint).
/// 2 added per-layer storage widths (kNarrowBits below); every version-1 model (all 16-bit) computes
/// the same bits under version 2, so model files of version 1 still load.
static const int kContractVersion = 2;
/// The oldest contract whose model files this version still runs unchanged.
static const int kOldestReadableContractVersion = 1;

/// Bits per feature-map / weight / bias element: in memory, on the kernel's ports, in model files.
static const int kDataBits = 16;

/// Per-layer storage widths (issue 16, docs/arithmetic.md "Per-layer widths"): a conv layer's
/// weights and its output activations are each stored in kDataBits (16) or kNarrowBits (8) bits.
/// Biases always stay 16-bit. A layer's input width is its producer's output width (the network
/// input: the first conv layer's input width, chosen by calibration); route, reorg and maxpool
/// carry their input's width. A width change is a requantisation inside the producing layer.
static const int kNarrowBits = 8;

/// True for the storage widths the contract knows (16 and 8).
inline bool is_storage_width(int bits) { return bits == kDataBits || bits == kNarrowBits; }

/// Exponents a quantized network may use; every shift below stays far from the width of int64.
static const int kMinExponent = -8;
static const int kMaxExponent = 24;

/// The shifts a quantized network may carry (docs/arithmetic.md, "Per-layer exponents"):
/// calibration chooses exponents inside these ranges, and the model file reader and the CPU int16
/// backend refuse anything outside them.
///   bias_shift   = Qw + Qin - Qb    in [kModelMinBiasShift, kModelMaxBiasShift]
///   output_shift = Qw + Qin - Qout  in [kModelMinOutputShift, kModelMaxOutputShift]
static const int kModelMinBiasShift = 0;
static const int kModelMaxBiasShift = 15;
static const int kModelMinOutputShift = -15;
static const int kModelMaxOutputShift = 31;

/// The wider ranges in which every step of the arithmetic is still defined and the same on every
/// path (align_bias shifts a uint32 by less than 32; round_shift and the leaky product stay inside
/// int64): the kernel refuses a command outside them (check_command) and so does the planner. A
/// model inside the ranges above is always inside these.
static const int kExactMinBiasShift = 0;
static const int kExactMaxBiasShift = 30;
static const int kExactMinOutputShift = -16;
static const int kExactMaxOutputShift = 46;

}  // namespace arith
}  // namespace fpgacnn

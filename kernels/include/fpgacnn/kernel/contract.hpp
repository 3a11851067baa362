// The hardware contract: the facts that the kernel, the planner, the drivers, the CPU int16
// backend, the quantized model file and the kernel fingerprint must agree on, each stated once here
// (the build's maxima are in config.hpp). Plain C++ on <stdint.h>: Vitis HLS reads it unchanged.
#pragma once

#include <stdint.h>

namespace fpgacnn {
/// The arithmetic contract (docs/arithmetic.md): storage widths, exponent and shift ranges and the
/// rounding every int16 path (the kernel, the CPU int16 backend) computes bit for bit.
namespace arith {

/// Version of the arithmetic contract (docs/arithmetic.md). Bumped whenever a rule changes;
/// recorded in quantized model files (fpgacnn-quantize) and in bitstreams (the fingerprint).
/// 2 added per-layer storage widths (kNarrowBits below); every version-1 model (all 16-bit) computes
/// the same bits under version 2, so model files of version 1 still load. 3 stores 8-bit conv weights
/// two per word in the kernel's parameter buffer (kNarrowWeightsPerWord) and adds the weight_bits
/// register; the arithmetic is unchanged, so model files of versions 1 and 2 still load, but a
/// version-2 bitstream would misread version-3 commands and parameters. 4 adds the input_bits register:
/// a conv layer whose input and weights are both 8-bit multiplies two output columns at once
/// (kPairShift below; same bits), so a version-3 bitstream would misread version-4 commands. 5 stores
/// 8-bit feature maps one byte per element in the arena (fm_element_bytes below) and adds the kernel's
/// byte-wide feature-map ports; the arithmetic is unchanged, so every model file still loads, but a
/// version-4 bitstream would read an 8-bit tensor's bytes as words. 6 adds the training phases (the
/// BP and WG command modes, their error_offset and batch registers, gradient_requantize below) and turns
/// a conv command's `leaky` word into an activation code (kActivation* below: 0 and 1 keep their
/// meaning, 2 adds relu); the forward arithmetic of linear and leaky is unchanged, so every model file
/// still loads, but the two new registers move the pointer registers and a version-5 bitstream would
/// run a relu layer as linear, so it would misread version-6 commands. 7 adds the upsample and shortcut
/// ops (kernel::kOpUpsample, kOpShortcut in layer_command.hpp; the shortcut's rule below and in
/// docs/arithmetic.md "Shortcut on int16" is the CPU engine's, unchanged); every model file still loads,
/// but a version-6 bitstream would refuse the new op codes.
static const int kContractVersion = 7;
/// The oldest contract whose model files this version still runs unchanged.
static const int kOldestReadableContractVersion = 1;

/// Bits of one word in memory, on the kernel's ports and in model files; every feature-map, bias and
/// 16-bit weight element takes one word (8-bit conv weights in the parameter buffer: see below).
static const int kDataBits = 16;

/// Per-layer storage widths (issue 16, docs/arithmetic.md "Per-layer widths"): a conv layer's
/// weights and its output activations are each stored in kDataBits (16) or kNarrowBits (8) bits.
/// Biases always stay 16-bit. A layer's input width is its producer's output width (the network
/// input: the first conv layer's input width, chosen by calibration); route, reorg and maxpool
/// carry their input's width. A width change is a requantisation inside the producing layer.
static const int kNarrowBits = 8;

/// The network input (the letterboxed image, values in [0, 1]) is always stored at kDataBits: at the
/// exponent that keeps 1.0 an 8-bit value could only hold steps of 1/64.
static const int kNetworkInputBits = kDataBits;

/// True for the storage widths the contract knows (16 and 8).
inline bool is_storage_width(int bits) { return bits == kDataBits || bits == kNarrowBits; }

/// Study widths (docs/arithmetic.md "Study widths"): fpgacnn-quantize --explore measures how a conv
/// layer's weights or output would fare at 6 or 4 bits. A b-bit tensor holds the values of a b-bit
/// signed integer (weights in [-2^(b-1), 2^(b-1) - 1], outputs saturated to that range, output
/// exponents the 16-bit one - (16 - b)) in the kNarrowBits storage. Only the CPU backend runs them,
/// for the study: a model file never records them and a device never receives them (both refuse them).
static const int kStudyWidths[2] = {6, 4};

/// True for a study width (6 or 4).
inline bool is_study_width(int bits) { return bits == kStudyWidths[0] || bits == kStudyWidths[1]; }

/// True for every width the CPU backend runs: a storage width or a study width.
inline bool is_cpu_width(int bits) { return is_storage_width(bits) || is_study_width(bits); }

/// In the kernel's parameter buffer a conv layer's weights at kNarrowBits are stored two per 16-bit
/// word, so an 8-bit layer's weights cost half the DDR space and half the port traffic: element 2i
/// of a (Tm, Tn) weight block in the low byte, element 2i+1 in the high byte, each a signed byte. A
/// block of E elements takes storage_words(E, 8) = ceil(E / 2) words, so every block starts on a
/// word and the kernel reads it as one burst. Biases stay one element per word.
static const int kNarrowWeightsPerWord = 2;

/// Words that `elements` weights of one block take at `bits` (kDataBits or kNarrowBits).
inline uint32_t storage_words(uint32_t elements, int bits) {
    return bits == kNarrowBits ? (elements + kNarrowWeightsPerWord - 1) / kNarrowWeightsPerWord : elements;
}

/// Bytes of one feature-map element stored at `bits` (kDataBits or kNarrowBits). In the feature-map
/// arena a 16-bit tensor takes one int16 word per element and an 8-bit tensor one signed byte per
/// element (the kernel moves it through its byte-wide ports, fm8_read / fm8_write: half the DDR space
/// and traffic). A command's input_offset / output_offset, and the planner's arena ranges, count
/// elements of the tensor's own width from the arena base: words for 16-bit, bytes for 8-bit tensors.
inline uint32_t fm_element_bytes(int bits) { return bits == kNarrowBits ? 1u : 2u; }

/// The signed byte `byte` (0 low, 1 high) of a packed weight word, sign-extended.
inline int16_t unpack_narrow(int16_t word, int byte) {
    const uint32_t bits = (static_cast<uint32_t>(static_cast<uint16_t>(word)) >> (8 * byte)) & 0xFFu;
    return static_cast<int16_t>(static_cast<int32_t>(bits) - static_cast<int32_t>((bits & 0x80u) << 1));
}

/// Two 8-bit weights (values in [-128, 127]) in one word: `low` in byte 0, `high` in byte 1.
inline int16_t pack_narrow(int16_t low, int16_t high) {
    const uint32_t word = (static_cast<uint32_t>(static_cast<uint16_t>(low)) & 0xFFu) |
                          ((static_cast<uint32_t>(static_cast<uint16_t>(high)) & 0xFFu) << 8);
    return static_cast<int16_t>(static_cast<int32_t>(word) - static_cast<int32_t>((word & 0x8000u) << 1));
}

/// Two 8-bit MACs per multiplier (the kernel's pair mode, docs/kernel.md "Two MACs per DSP"): for a
/// conv layer whose input and weights are both kNarrowBits, two input values x0, x1 that share a
/// weight w (the same tap of two neighbouring output columns) enter one multiplier as
/// x1 * 2^kPairShift + x0, and the product's fields are split again: low = the sign-extended low
/// kPairShift bits = x0 * w, high = (product - low) / 2^kPairShift = x1 * w. Exact because |x0 * w| <=
/// 2^14 < 2^(kPairShift - 1). The packed operand takes kPairOperandBits (24) bits: within the 25-bit
/// pre-adder / A port of a DSP48E1 and the 27-bit one of a DSP48E2.
static const int kPairShift = 16;
/// Bits of the packed pair operand x1 * 2^kPairShift + x0 (see above).
static const int kPairOperandBits = kNarrowBits + kPairShift;

/// Activation codes of a conv command (its `leaky` word, LayerCommand) and of requantize(): the
/// activation is folded into the output's single rounding (docs/arithmetic.md, "Activations").
/// relu is leaky with slope 0: a negative accumulator gives 0. Other activations (logistic, mish)
/// have no code: they never reach the kernel or the fixed-point engine.
static const uint32_t kActivationLinear = 0;  ///< no activation: the rounded, saturated sum
/// leaky ReLU: darknet's slope 0.1 as kLeakyMultiplier / 2^kLeakyShift (arithmetic.hpp)
static const uint32_t kActivationLeaky = 1;
static const uint32_t kActivationRelu = 2;  ///< ReLU: a negative sum gives 0
/// The number of codes: a code at or above it is refused (kernel::check_command).
static const uint32_t kActivationCodes = 3;

/// A [shortcut]'s output exponent may be at most this far above the finer of its operands' (Qout <=
/// max(Qa, Qb) + gain; docs/arithmetic.md "Shortcut on int16"): the engine, calibration and the
/// kernel's shortcut op (output_shift = max(Qa, Qb) - Qout >= -gain) keep every step inside int64.
static const int kShortcutMaxOutputGain = 8;

/// Exponents a quantized network may use; every shift below stays far from the width of int64.
static const int kMinExponent = -8;
/// The largest exponent (see kMinExponent).
static const int kMaxExponent = 24;

/// The shifts a quantized network may carry (docs/arithmetic.md, "Per-layer exponents"):
/// calibration chooses exponents inside these ranges, and the model file reader and the CPU int16
/// backend refuse anything outside them.
///   bias_shift   = Qw + Qin - Qb    in [kModelMinBiasShift, kModelMaxBiasShift]
///   output_shift = Qw + Qin - Qout  in [kModelMinOutputShift, kModelMaxOutputShift]
static const int kModelMinBiasShift = 0;
/// Largest bias_shift of a model (see kModelMinBiasShift).
static const int kModelMaxBiasShift = 15;
/// Smallest output_shift of a model (see kModelMinBiasShift).
static const int kModelMinOutputShift = -15;
/// Largest output_shift of a model (see kModelMinBiasShift).
static const int kModelMaxOutputShift = 31;

/// The wider ranges in which every step of the arithmetic is still defined and the same on every
/// path (align_bias shifts a uint32 by less than 32; round_shift and the leaky product stay inside
/// int64): the kernel refuses a command outside them (check_command) and so does the planner. A
/// model inside the ranges above is always inside these.
static const int kExactMinBiasShift = 0;
/// Largest bias_shift a command may carry (see kExactMinBiasShift).
static const int kExactMaxBiasShift = 30;
/// Smallest output_shift a command may carry (see kExactMinBiasShift).
static const int kExactMinOutputShift = -16;
/// Largest output_shift a command may carry (see kExactMinBiasShift).
static const int kExactMaxOutputShift = 46;

}  // namespace arith
}  // namespace fpgacnn

// One accelerator call = one layer. The same plain struct is written to the IP's AXI-Lite registers
// (uio, see register_map.hpp), passed as xrt::run arguments (xrt), or handed to the kernel function
// directly (emu). Offsets count 16-bit words from a buffer base, so one command list works for any
// buffer placement; the driver supplies the base addresses.
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn {
namespace kernel {

/// kOpIdentify writes the build's fingerprint (fingerprint.hpp) at output_offset; every other field
/// is ignored. Hosts run it once when they open a device.
/// The training phases of a conv layer (contract 6, docs/kernel.md "Training phases") run on the same
/// Tm x Tn array; their command describes the FORWARD layer (in_* = its input X, out_* = its output Y,
/// kernel_size / stride / pad its window) and the op says which phase:
///   kOpConvBackward (BP): input_offset = the error dY (out_c x out_h x out_w per image), weight_offset =
///     the BP weight layout (weight_layout.hpp backward_weight_index), output_offset = the input delta
///     dX (in_c x in_h x in_w per image); output_shift = Qw + Qe(dY) - Qe(dX); tiles tile dX.
///   kOpWeightGradient (WG): input_offset = the layer's input X, error_offset = dY, output_offset = the
///     weight gradient dW in darknet's [out_c][in_c][K][K] order, summed over the batch; output_shift =
///     Qx + Qe(dY) - Qg; tiles tile dY.
/// Both: every width 16, leaky 0 (the activation's derivative is applied by the host), bias fields
/// ignored; `batch` images one after the other in each tensor.
/// Contract 7 adds two element-wise ops (docs/kernel.md "Upsample and shortcut"), in builds that have
/// them (Maxima::upsample_shortcut; check_command refuses them elsewhere). They reuse the command's
/// words, so LayerCommand keeps its 24 words:
///   kOpUpsample: darknet's nearest-neighbour [upsample] (scale 1): out_c = in_c, out_h = in_h * stride,
///     out_w = in_w * stride; output_shift = Qin - Qout, output_bits = input_bits, weight_bits 16,
///     kernel_size 1, pad 0; tile_cols = the output row segment, 1..kMaxElementwiseSegment (tile_rows
///     unused).
///   kOpShortcut: darknet's [shortcut] of two tensors of one shape (in_* = out_*): input_offset = the
///     previous layer's output a (at input_bits), error_offset = layer `from`'s output b (at weight_bits:
///     the word's meaning for this op), output_offset = the sum; bias_shift = Qa - Qb (a positive value
///     aligns b up to Qa, a negative one a up to Qb, |value| <= kMaxExponent - kMinExponent), output_shift
///     = max(Qa, Qb) - Qout (>= -arith::kShortcutMaxOutputGain), leaky = the activation code,
///     output_bits = input_bits; kernel_size 1, stride 1, pad 0; tile_cols = the row segment,
///     1..kMaxElementwiseSegment.
enum Op {
    kOpConv = 0,
    kOpMaxPool = 1,
    kOpReorg = 2,
    kOpIdentify = 3,
    kOpConvBackward = 4,
    kOpWeightGradient = 5,
    kOpUpsample = 6,
    kOpShortcut = 7
};

/// Whether an op is one of the training phases (BP or WG).
inline bool is_training_op(uint32_t op) { return op == kOpConvBackward || op == kOpWeightGradient; }

/// Whether an op is one of contract 7's element-wise ops (upsample, shortcut).
inline bool is_upsample_shortcut_op(uint32_t op) { return op == kOpUpsample || op == kOpShortcut; }

/// Longest row segment of an upsample / shortcut command (its tile_cols): one AXI burst of 256 beats at
/// most, and the length of the ops' three line buffers (3 x 256 x 16 bits, whatever Tc is). Long segments
/// matter: each segment pays a read latency, and a shortcut moves three tensors one element a beat.
static const int kMaxElementwiseSegment = 256;

/// Largest |bias_shift| of a shortcut command: the distance between two exponents of the contract.
static const int kShortcutMaxAlignShift = arith::kMaxExponent - arith::kMinExponent;

/// Largest batch of a training command: a WG sum of at most kMaxDimension^2 * kMaxTrainBatch = 2^32
/// products of two int16 (each |p| <= 2^30) stays below 2^62, so its int64 accumulators never wrap.
static const int kMaxTrainBatch = 64;

/// One layer for the kernel (see the top of this file): what it computes, where its tensors and
/// parameters are, its shapes, tiling, shifts and widths. Checked by check_command before it runs.
struct LayerCommand {
    uint32_t op;             ///< Op
    uint32_t input_offset;   ///< feature-map arena, int16 elements: the layer's CHW input
    uint32_t output_offset;  ///< feature-map arena, int16 elements: the layer's CHW output
    uint32_t weight_offset;  ///< parameter buffer, words: re-ordered weights (conv only)
    uint32_t bias_offset;    ///< parameter buffer, words: biases padded to Tm (conv only)
    uint32_t in_c;           ///< input channels, 1..kMaxChannels
    uint32_t in_h;           ///< input height, pixels, 1..kMaxDimension
    uint32_t in_w;           ///< input width, pixels, 1..kMaxDimension
    uint32_t out_c;          ///< output channels (conv: filters), 1..kMaxChannels
    uint32_t out_h;          ///< output height, pixels, 1..kMaxDimension
    uint32_t out_w;          ///< output width, pixels, 1..kMaxDimension
    uint32_t kernel_size;    ///< conv / maxpool window K
    uint32_t stride;         ///< conv / maxpool / reorg stride
    uint32_t pad;            ///< conv: zero rows/columns on each side; maxpool: window start offset
                             /// before the stride position (darknet's padding / 2); reorg: 0
    uint32_t leaky;          ///< conv: the activation folded into the rounding, an arith::kActivation* code
                             /// (0 linear, 1 leaky, 2 relu; named leaky since contract 1)
    int32_t bias_shift;      ///< conv: Qw + Qin - Qb
    int32_t output_shift;    ///< conv: Qw + Qin - Qout; maxpool / reorg: Qin - Qout (0 when equal)
    uint32_t tile_rows;      ///< output rows per tile, 1..Tr (reorg: unused)
    uint32_t tile_cols;      ///< output columns per tile, 1..Tc (reorg: row segment length, 1..Tc)
    uint32_t output_bits;    ///< storage width of the output, arith::kDataBits or kNarrowBits (conv clamps
                             /// to it; maxpool / reorg carry their input's); still one int16 word each
    uint32_t weight_bits;    ///< conv: storage width of the weights, kDataBits or kNarrowBits (8-bit
                             /// weights are packed two per word, arith::kNarrowWeightsPerWord);
                             /// maxpool / reorg have no weights: must be kDataBits
    uint32_t input_bits;     ///< storage width of the input (its producer's output_bits): conv with 8-bit
                             // input and weights runs in pair mode (arith::kPairShift); maxpool / reorg
                             // carry their input's width, so it must equal output_bits
    uint32_t error_offset;   ///< contract 6, WG: feature-map arena, int16 elements: the error dY;
                             ///< contract 7, shortcut: the `from` tensor b, in elements of its width
    uint32_t batch;          ///< contract 6, BP and WG: images, 1..kMaxTrainBatch (FP ops ignore it)
};

/// Number of 32-bit words (registers) of a command, in declaration order.
static const int kCommandWords = 24;

/// What check_command found (the first rule broken); command_check_text() says it in words.
enum CommandCheck {
    kCommandOk = 0,          ///< the command can run
    kCommandBadOp,           ///< op is not an Op
    kCommandBadDimension,    ///< a size is 0 or above kMaxDimension / kMaxChannels
    kCommandBadWindow,       ///< kernel_size or stride outside 1..max_kernel / 1..max_stride
    kCommandBadPad,          ///< pad >= kernel_size
    kCommandBadTile,         ///< tile_rows / tile_cols outside 1..Tr / 1..Tc
    kCommandBadShift,        ///< bias_shift / output_shift outside arith::kExact*Shift
    kCommandShapeMismatch,   ///< output shape does not follow from input shape and window
    kCommandBadWidth,        ///< output_bits is not a storage width (arith::is_storage_width)
    kCommandBadWeightWidth,  ///< conv: weight_bits is not a storage width; maxpool / reorg: not 16
    kCommandBadInputWidth,   ///< input_bits is not a storage width; maxpool / reorg: not output_bits
    kCommandBadTraining,  ///< BP / WG: a width is not 16, leaky is set or batch is outside 1..kMaxTrainBatch
    kCommandBadActivation,   ///< conv: the activation code (leaky word) is not an arith::kActivation* code
    kCommandBadElementwise,  ///< upsample / shortcut: a window field, width or shift outside the op's rule
};

/// Whether a conv command runs in pair mode: two output columns per multiplier (arith::kPairShift).
inline bool conv_runs_in_pairs(const LayerCommand& c) {
    return c.input_bits == static_cast<uint32_t>(arith::kNarrowBits) &&
           c.weight_bits == static_cast<uint32_t>(arith::kNarrowBits);
}

/// Conv output size along one axis: (in + 2 pad - K) / S + 1 (darknet's convolutional layer).
inline uint32_t conv_output_extent(uint32_t in, uint32_t kernel_size, uint32_t stride, uint32_t pad) {
    const int64_t span = static_cast<int64_t>(in) + 2 * static_cast<int64_t>(pad) - kernel_size;
    if (span < 0 || stride == 0) return 0;
    return static_cast<uint32_t>(span / stride + 1);
}

/// check_command's rules for kOpUpsample and kOpShortcut (the op comment above).
inline CommandCheck check_upsample_shortcut(const LayerCommand& c, const Maxima& maxima) {
    const uint32_t dims[4] = {c.in_h, c.in_w, c.out_h, c.out_w};
    for (int i = 0; i < 4; ++i) {
        if (dims[i] == 0 || dims[i] > static_cast<uint32_t>(kMaxDimension)) return kCommandBadDimension;
    }
    if (c.in_c == 0 || c.in_c > static_cast<uint32_t>(kMaxChannels)) return kCommandBadDimension;
    if (!arith::is_storage_width(static_cast<int>(c.output_bits))) return kCommandBadWidth;
    if (c.input_bits != c.output_bits) return kCommandBadInputWidth;
    if (c.tile_cols < 1 || c.tile_cols > static_cast<uint32_t>(kMaxElementwiseSegment))
        return kCommandBadTile;
    if (c.kernel_size != 1 || c.pad != 0) return kCommandBadElementwise;
    if (c.op == kOpUpsample) {
        if (c.stride < 1 || c.stride > static_cast<uint32_t>(maxima.max_stride)) return kCommandBadWindow;
        if (c.weight_bits != static_cast<uint32_t>(arith::kDataBits) || c.leaky != arith::kActivationLinear)
            return kCommandBadElementwise;
        if (c.output_shift < arith::kExactMinOutputShift || c.output_shift > arith::kExactMaxOutputShift)
            return kCommandBadShift;
        if (c.out_c != c.in_c || c.out_h != c.in_h * c.stride || c.out_w != c.in_w * c.stride)
            return kCommandShapeMismatch;
        return kCommandOk;
    }
    if (c.stride != 1) return kCommandBadWindow;
    if (!arith::is_storage_width(static_cast<int>(c.weight_bits))) return kCommandBadElementwise;
    if (c.leaky >= arith::kActivationCodes) return kCommandBadActivation;
    if (c.bias_shift < -kShortcutMaxAlignShift || c.bias_shift > kShortcutMaxAlignShift ||
        c.output_shift < -arith::kShortcutMaxOutputGain || c.output_shift > arith::kExactMaxOutputShift) {
        return kCommandBadShift;
    }
    if (c.out_c != c.in_c || c.out_h != c.in_h || c.out_w != c.in_w) return kCommandShapeMismatch;
    return kCommandOk;
}

/// Whether a kernel built with `maxima` can run this command (hosts check a command against the
/// maxima of the device's build, which its fingerprint reports, before they start it).
inline CommandCheck check_command(const LayerCommand& c, const Maxima& maxima) {
    if (c.op == kOpIdentify) return kCommandOk;
    if (c.op != kOpConv && c.op != kOpMaxPool && c.op != kOpReorg && !is_training_op(c.op) &&
        !(is_upsample_shortcut_op(c.op) && maxima.upsample_shortcut)) {
        return kCommandBadOp;
    }
    if (is_upsample_shortcut_op(c.op)) return check_upsample_shortcut(c, maxima);
    if (is_training_op(c.op)) {
        const uint32_t w16 = static_cast<uint32_t>(arith::kDataBits);
        if (c.output_bits != w16 || c.weight_bits != w16 || c.input_bits != w16 || c.leaky != 0 ||
            c.batch < 1 || c.batch > static_cast<uint32_t>(kMaxTrainBatch)) {
            return kCommandBadTraining;
        }
    }
    if (!arith::is_storage_width(static_cast<int>(c.output_bits))) return kCommandBadWidth;
    /// Layers without weights take the 16-bit default, so a stray value is caught, not ignored.
    const bool weight_width_ok = c.op == kOpConv ? arith::is_storage_width(static_cast<int>(c.weight_bits))
                                                 : c.weight_bits == static_cast<uint32_t>(arith::kDataBits);
    if (!weight_width_ok) return kCommandBadWeightWidth;
    const bool input_width_ok = c.op == kOpConv ? arith::is_storage_width(static_cast<int>(c.input_bits))
                                                : c.input_bits == c.output_bits;
    if (!input_width_ok) return kCommandBadInputWidth;
    const uint32_t dims[4] = {c.in_h, c.in_w, c.out_h, c.out_w};
    for (int i = 0; i < 4; ++i) {
        if (dims[i] == 0 || dims[i] > static_cast<uint32_t>(kMaxDimension)) return kCommandBadDimension;
    }
    if (c.in_c == 0 || c.out_c == 0 || c.in_c > static_cast<uint32_t>(kMaxChannels) ||
        c.out_c > static_cast<uint32_t>(kMaxChannels)) {
        return kCommandBadDimension;
    }
    if (c.stride < 1 || c.stride > static_cast<uint32_t>(maxima.max_stride)) return kCommandBadWindow;
    if (c.output_shift < arith::kExactMinOutputShift || c.output_shift > arith::kExactMaxOutputShift) {
        return kCommandBadShift;
    }
    if (c.tile_cols < 1 || c.tile_cols > static_cast<uint32_t>(maxima.tc)) return kCommandBadTile;
    if (c.op == kOpReorg) {
        const uint32_t s2 = c.stride * c.stride;
        if (c.in_c % s2 != 0 || c.out_c != c.in_c * s2 || c.out_h * c.stride != c.in_h ||
            c.out_w * c.stride != c.in_w) {
            return kCommandShapeMismatch;
        }
        return kCommandOk;
    }
    if (c.kernel_size < 1 || c.kernel_size > static_cast<uint32_t>(maxima.max_kernel))
        return kCommandBadWindow;
    if (c.pad >= c.kernel_size) return kCommandBadPad;
    if (c.tile_rows < 1 || c.tile_rows > static_cast<uint32_t>(maxima.tr)) return kCommandBadTile;
    if (c.op == kOpMaxPool) {
        if (c.out_c != c.in_c) return kCommandShapeMismatch;
        return kCommandOk;
    }
    // Training commands have no bias: their bias fields are ignored.
    if (c.op == kOpConv &&
        (c.bias_shift < arith::kExactMinBiasShift || c.bias_shift > arith::kExactMaxBiasShift)) {
        return kCommandBadShift;
    }
    if (c.leaky >= arith::kActivationCodes) return kCommandBadActivation;
    if (c.out_h != conv_output_extent(c.in_h, c.kernel_size, c.stride, c.pad) ||
        c.out_w != conv_output_extent(c.in_w, c.kernel_size, c.stride, c.pad)) {
        return kCommandShapeMismatch;
    }
    return kCommandOk;
}

/// What the kernel itself enforces: the command checked against this translation unit's build
/// (its FPGACNN_* maxima). The kernel does nothing for a command that fails (hardware must never
/// write outside its tiles).
inline CommandCheck check_command(const LayerCommand& c) { return check_command(c, compiled_maxima()); }

/// A sentence for hosts' error messages.
inline const char* command_check_text(CommandCheck check) {
    switch (check) {
        case kCommandOk:
            return "ok";
        case kCommandBadOp:
            return "unknown operation (0 = conv, 1 = maxpool, 2 = reorg, 3 = identify, 4 = conv backward, "
                   "5 = weight gradient, 6 = upsample and 7 = shortcut in builds that have them)";
        case kCommandBadDimension:
            return "a height/width/channel count is 0 or above the kernel's limit";
        case kCommandBadWindow:
            return "kernel size or stride outside what this kernel build supports";
        case kCommandBadPad:
            return "padding must be smaller than the kernel size";
        case kCommandBadTile:
            return "tile rows/columns outside 1..Tr / 1..Tc of this kernel build";
        case kCommandBadShift:
            return "bias or output shift outside the range the arithmetic keeps exact";
        case kCommandShapeMismatch:
            return "output shape does not follow from the input shape and window";
        case kCommandBadWidth:
            return "output width (output_bits) must be 16 or 8";
        case kCommandBadWeightWidth:
            return "weight width (weight_bits) must be 16 or 8 for conv, 16 for maxpool and reorg";
        case kCommandBadInputWidth:
            return "input width (input_bits) must be 16 or 8 for conv, the output width for maxpool and "
                   "reorg";
        case kCommandBadTraining:
            return "a training command (conv backward, weight gradient) needs 16-bit widths, leaky 0 and a "
                   "batch of 1 to 64 images";
        case kCommandBadActivation:
            return "activation code (leaky register) must be 0 (linear), 1 (leaky) or 2 (relu)";
        case kCommandBadElementwise:
            return "an upsample / shortcut command needs kernel_size 1, pad 0, a 16- or 8-bit second operand "
                   "(shortcut) and, for upsample, weight_bits 16 and no activation";
    }
    return "unknown check result";
}

/// a / b rounded up (b > 0; a + b - 1 must not overflow).
inline uint32_t div_ceil(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/// Elements of the re-ordered weights of a conv layer for a Tm x Tn kernel: ceil(M/Tm) x ceil(N/Tn)
/// blocks of Tm*Tn*K*K (docs/kernel.md, "Weight layout").
inline uint32_t reordered_weight_elements(uint32_t out_c, uint32_t in_c, uint32_t kernel_size, uint32_t tm,
                                          uint32_t tn) {
    return div_ceil(out_c, tm) * div_ceil(in_c, tn) * tm * tn * kernel_size * kernel_size;
}

/// Words of a conv layer's re-ordered weights at `weight_bits`: every (Tm, Tn) block takes
/// arith::storage_words of its elements, so blocks stay word-aligned.
inline uint32_t reordered_weight_words(uint32_t out_c, uint32_t in_c, uint32_t kernel_size, uint32_t tm,
                                       uint32_t tn, int weight_bits) {
    return div_ceil(out_c, tm) * div_ceil(in_c, tn) *
           arith::storage_words(tm * tn * kernel_size * kernel_size, weight_bits);
}

/// Elements of a conv layer's biases, zero-padded to a multiple of Tm.
inline uint32_t padded_bias_elements(uint32_t out_c, uint32_t tm) { return div_ceil(out_c, tm) * tm; }

}  // namespace kernel
}  // namespace fpgacnn

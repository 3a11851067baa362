// The CPU int16 backend's layer operations on raw CHW int16 buffers, exactly per
// docs/arithmetic.md. The FPGA kernel computes the same bits; tests compare them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/kernel/contract.hpp"  // the shift ranges a model may carry
#include "fpgacnn/network.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

class ThreadPool;  ///< the CPU backends' worker threads (Int16Engine passes the process-wide one)

/// Instruction-set paths of the int16 conv; every path gives identical bits.
/// Scalar is portable C++ with the same packed layout and blocking as the SIMD paths.
enum class Int16Isa { Scalar, Avx2, Avx512Vnni, Neon };
/// "scalar", "avx2", "avx512vnni" or "neon" (the names --isa and the logs use).
FPGACNN_API const char* isa_name(Int16Isa isa);
/// The best path this CPU supports (run-time dispatch) that also passes int16_isa_self_test();
/// decided once per process.
FPGACNN_API Int16Isa best_int16_isa();
/// Whether this CPU can run the path (asked of the CPU at run time; without int16_isa_self_test).
FPGACNN_API bool int16_isa_supported(Int16Isa isa);
/// Every path this CPU supports, Scalar first.
FPGACNN_API std::vector<Int16Isa> supported_int16_isas();
/// Runs the path on a few small convs and the requantize edge cases and compares with the scalar
/// reference bit for bit (a few milliseconds). False if unsupported or different.
FPGACNN_API bool int16_isa_self_test(Int16Isa isa);

/// One conv layer in fixed point. Shapes from the IR; exponents from QuantizedLayer.
struct FPGACNN_API Int16ConvArgs {
    TensorShape input;   ///< the layer's input, CHW
    TensorShape output;  ///< output.c = filters
    int size = 1;        ///< kernel side K
    int stride = 1;      ///< stride S
    int pad = 0;         ///< zero padding on each side, pixels
    bool leaky = false;  ///< leaky ReLU (darknet's 0.1 slope, as the contract rounds it); false: linear
    /// relu (leaky with slope 0: a negative accumulator gives 0); leaky and relu are not both set.
    /// Placed in the padding after `leaky`, so the struct's size and offsets are those of 0.2.0.
    bool relu = false;
    int bias_shift = 0;    ///< Qw + Qin - Qb, in arith::kModel{Min,Max}BiasShift
    int output_shift = 0;  ///< Qw + Qin - Qout, in arith::kModel{Min,Max}OutputShift
    int output_bits = 16;  ///< storage width of the output (arith::kDataBits or kNarrowBits): its clamp
    /// Storage widths of the input values and of the weights (arith::kDataBits or kNarrowBits): every
    /// input value and weight must lie in its width's range ([-128, 127] at 8 bits). When both are
    /// 8-bit, the AVX-512 VNNI path multiplies bytes (vpdpbusd), twice the MACs per instruction.
    int input_bits = 16;
    int weight_bits = 16;  ///< see input_bits

    /// Weights of the layer: output.c * input.c * size * size.
    std::size_t weight_count() const { return static_cast<std::size_t>(output.c) * input.c * size * size; }
};

/// The arguments' activation as an arith::kActivation* code (the kernel command's `leaky` word).
inline uint32_t int16_activation_code(const Int16ConvArgs& args) {
    if (args.relu) return arith::kActivationRelu;
    return args.leaky ? arith::kActivationLeaky : arith::kActivationLinear;
}

/// The conv arguments of an IR conv layer with its exponents and widths; `input_bits` is the
/// producer's output width (the network input's is arith::kDataBits). Throws Error naming the
/// layer when the shapes, the shifts or the widths break the contract.
FPGACNN_API Int16ConvArgs int16_conv_args(const Layer& layer, const QuantizedLayer& quantized,
                                          int input_bits = 16);

/// Throws Error (prefixed with `what`, e.g. "layer 3 (convolutional)") unless the arguments are
/// runnable: positive sizes, an output shape that follows from input/size/stride/pad, shifts in range,
/// storage widths of 16 or 8 bits.
FPGACNN_API void check_int16_conv_args(const Int16ConvArgs& args, const std::string& what);

/// The definition of truth: direct loops, acc = align_bias(b, bias_shift), then mac() over
/// input channel, ky, kx with zero padding, out = requantize_to_width(acc, output_shift,
/// int16_activation_code(args), output_bits).
/// weights: [filters][channels][size][size]; biases: [filters].
FPGACNN_API void int16_conv_reference(const Int16ConvArgs& args, const int16_t* weights,
                                      const int16_t* biases, const int16_t* input, int16_t* output);

/// requantize() over n accumulators with one ISA path (the conv epilogue); identical bits on every path.
FPGACNN_API void int16_requantize(const int32_t* acc, int16_t* out, std::size_t n, int shift, bool leaky,
                                  Int16Isa isa);
/// int16_requantize with the activation as an arith::kActivation* code (linear, leaky or relu).
FPGACNN_API void int16_requantize_activation(const int32_t* acc, int16_t* out, std::size_t n, int shift,
                                             uint32_t activation, Int16Isa isa);

/// The fast conv: weights packed once for one ISA path (pairs of input channels interleaved per
/// block of output channels; quads of bytes on AVX-512 VNNI when input and weights are 8-bit), the
/// input packed per run (padded, channel pairs or quads per pixel), register-blocked SIMD
/// micro-kernels, work spread over a thread pool. Throws Error when an 8-bit weight is out of range.
class FPGACNN_API Int16PackedConv {
public:
    /// Packs `weights` ([filters][channels][size][size], args.weight_count() values) and `biases`
    /// ([filters]) for `isa`; neither is kept (the conv owns its packed copy). Throws Error when the
    /// arguments break the contract (check_int16_conv_args), this CPU does not support `isa`, or an
    /// 8-bit weight is out of range.
    Int16PackedConv(const Int16ConvArgs& args, const int16_t* weights, const int16_t* biases, Int16Isa isa);
    ~Int16PackedConv();
    /// Takes `other`'s packed parameters; `other` may only be destroyed or assigned to afterwards.
    Int16PackedConv(Int16PackedConv&&) noexcept;
    /// Takes `other`'s packed parameters (this one's are freed); `other` may only be destroyed or
    /// assigned to afterwards.
    Int16PackedConv& operator=(Int16PackedConv&&) noexcept;

    /// input: args.input CHW; output: args.output CHW. pool == nullptr runs on the calling thread.
    /// Not reentrant: one run at a time per object (it keeps the packed input as scratch, allocated
    /// on the first call).
    void run(const int16_t* input, int16_t* output, ThreadPool* pool = nullptr);
    /// run() with the packed input in `scratch` (at least packed_input_size() values, 64-byte
    /// aligned), so convs that run one after the other share one buffer (Int16Engine).
    void run(const int16_t* input, int16_t* output, int16_t* scratch, ThreadPool* pool);
    /// The packed input's size in int16 values (an 8-bit layout's bytes rounded up to them).
    std::size_t packed_input_size() const;
    /// Bytes of the packed weights and biases (what the conv keeps of its parameters).
    std::size_t packed_parameter_bytes() const;

    /// The arguments it was packed for.
    const Int16ConvArgs& args() const;
    /// The path it was packed for and runs.
    Int16Isa isa() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// darknet's maxpool on int16 (window starts padding/2 before the stride position, taps outside
/// the image skipped); the exponent is unchanged. pool == nullptr runs on the calling thread.
FPGACNN_API void int16_maxpool(const Layer& layer, const int16_t* input, int16_t* output,
                               ThreadPool* pool = nullptr);

/// darknet's reorg_cpu(..., forward=0) on int16, with the layer's input w, h, c.
FPGACNN_API void int16_reorg(const Layer& layer, const int16_t* input, int16_t* output);

/// darknet's global [avgpool] on int16, the exponent and width unchanged: out[c] = the sum of channel
/// c's h*w values (exact, 64-bit) divided by h*w and rounded half up (docs/arithmetic.md, "Classifier
/// layers"); the mean lies within its inputs' range, so nothing saturates.
FPGACNN_API void int16_avgpool(const Layer& layer, const int16_t* input, int16_t* output);

/// darknet's [crop] at inference on int16 values at exponent `q`: the centred window, each value
/// 2x - 1 (x with noadjust), 1 rounded to exponent q (round half up) and the result saturated to
/// `bits`; the exponent is unchanged.
FPGACNN_API void int16_crop(const Layer& layer, int q, int bits, const int16_t* input, int16_t* output);

/// darknet's upsample on int16: nearest neighbour, the exponent unchanged (a copy).
FPGACNN_API void int16_upsample(const Layer& layer, const int16_t* input, int16_t* output);

/// A shortcut's output exponent may be at most this much finer than the finer of its operands
/// (Qout <= max(Qa, Qb) + 8): with exponents in [kMinExponent, kMaxExponent] every intermediate then
/// stays within int64 (docs/arithmetic.md, "Shortcut"). The contract's value (arith::kShortcutMaxOutputGain),
/// which the kernel's shortcut op checks too.
constexpr int kShortcutMaxOutputGain = arith::kShortcutMaxOutputGain;

/// The exponents and output width of a [shortcut] in fixed point (docs/arithmetic.md, "Shortcut").
struct FPGACNN_API Int16ShortcutArgs {
    int input_q = 0;       ///< the previous layer's output exponent
    int added_q = 0;       ///< layer `from`'s output exponent
    int output_q = 0;      ///< the shortcut's own output exponent
    int output_bits = 16;  ///< the output's storage width, 16 or 8
};

/// darknet's shortcut on int16: both operands aligned to the finer exponent (exact, in 64 bits),
/// added, then one rounding to output_q (round half up) with the activation folded in as the conv's
/// requantize does (linear or leaky), saturated to output_bits. `added` has shape `added_shape`;
/// the overlap rules are darknet's shortcut_cpu (as the float path).
FPGACNN_API void int16_shortcut(const Layer& layer, const Int16ShortcutArgs& args, const int16_t* input,
                                const int16_t* added, const TensorShape& added_shape, int16_t* output);

/// darknet's route: the sources' outputs concatenated along channels (all at one exponent); with
/// groups, each source's group_id-th channel slice.
/// `layer_outputs` is indexed by layer index.
FPGACNN_API void int16_route(const Layer& layer, const std::vector<std::vector<int16_t>>& layer_outputs,
                             int16_t* output);
/// The same with each layer's output given as a pointer and a value count (buffers the engine reuses).
FPGACNN_API void int16_route(const Layer& layer, const std::vector<const int16_t*>& layer_outputs,
                             const std::vector<std::size_t>& layer_sizes, int16_t* output);

}  // namespace fpgacnn

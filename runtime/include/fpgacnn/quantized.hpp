// A network quantized to int16 dynamic fixed point (docs/arithmetic.md): per layer the exponents
// of input, output, weights and biases, and the int16 parameters. Produced by calibration
// (fpgacnn-quantize), stored in a quantized model file, executed by the CPU int16 backend and the
// FPGA kernel with identical results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn {

/// One layer in fixed point: its exponents, storage widths and (unless they stay in the model file)
/// its int16 parameters.
struct FPGACNN_API QuantizedLayer {
    int input_q = 0;   ///< exponent of the layer's input activations (value = int * 2^-q)
    int output_q = 0;  ///< exponent of its output activations
    int weight_q = 0;  ///< conv layers only: exponent of the weights
    int bias_q = 0;    ///< conv layers only: exponent of the biases
    /// Storage widths (arith::kDataBits or arith::kNarrowBits, docs/arithmetic.md "Per-layer
    /// widths"): of this layer's output activations (every layer kind; route / reorg / maxpool /
    /// region carry their input's) and, on conv layers, of the weights. The values stay int16 in
    /// memory here; an 8-bit one lies in [-128, 127].
    int output_bits = 16;
    int weight_bits = 16;          ///< see output_bits
    std::vector<int16_t> weights;  ///< [filters][channels][size][size], darknet order
    std::vector<int16_t> biases;   ///< [filters]
};

/// Where a QuantizedNetwork's int16 parameters are when they are not in memory: the quantized model
/// file, read one layer at a time when a backend packs or uploads them (so a board never holds the
/// whole model besides the packed copy or the device buffer).
class FPGACNN_API QuantizedParameterSource {
public:
    virtual ~QuantizedParameterSource() = default;
    /// Layer i's weight and bias counts as stored (0 for layers without parameters).
    virtual std::size_t weight_count(std::size_t layer) const = 0;
    /// See weight_count.
    virtual std::size_t bias_count(std::size_t layer) const = 0;
    /// Reads layer i's parameters into `layer.weights` / `layer.biases`. Throws Error naming the file
    /// when it cannot be read or no longer holds what was loaded.
    virtual void read(std::size_t layer, QuantizedLayer& into) const = 0;
};

/// A network in int16 dynamic fixed point: the IR, the input exponent and one QuantizedLayer per layer.
/// Made by calibrate() or load_quantized_network(); shared read-only (std::shared_ptr<const ...>) by the
/// backends that run it, which may read it from several threads at once.
struct FPGACNN_API QuantizedNetwork {
    /// The IR: shapes and layer kinds. Its float parameters are optional (reports and calibration
    /// use them; the int16 backends never do, and the tools drop them: release_float_parameters).
    Network network;
    int input_q = 14;  ///< the letterboxed image in [0, 1] at a fixed exponent
    /// One per network layer. With a parameter_source, the exponents only (weights / biases empty).
    std::vector<QuantizedLayer> layers;
    /// Set when the int16 parameters stay in the model file (load_quantized_network with
    /// ParameterLoading::OnDemand); read them through ResidentLayer.
    std::shared_ptr<const QuantizedParameterSource> parameter_source;
};

/// Layer i's weight and bias counts, from memory or from the parameter source.
FPGACNN_API std::size_t quantized_weight_count(const QuantizedNetwork& quantized, std::size_t layer);
/// See quantized_weight_count.
FPGACNN_API std::size_t quantized_bias_count(const QuantizedNetwork& quantized, std::size_t layer);

/// One layer with its int16 parameters in memory for as long as this object lives: the network's
/// own layer when the parameters are there, else a copy read from the parameter source. Consumers
/// that pack or upload parameters go through it one layer at a time.
class FPGACNN_API ResidentLayer {
public:
    /// Layer `layer` of `quantized` (which must outlive this object); reads it from the parameter
    /// source when its parameters are not in memory (throws that source's Error).
    ResidentLayer(const QuantizedNetwork& quantized, std::size_t layer);
    ResidentLayer(const ResidentLayer&) = delete;
    ResidentLayer& operator=(const ResidentLayer&) = delete;
    /// The layer with its weights and biases; valid while this object lives.
    const QuantizedLayer& get() const { return *layer_; }

private:
    QuantizedLayer read_;
    const QuantizedLayer* layer_ = nullptr;
};

/// Throws Error (prefixed with `where`) when one of `count` weights lies outside the `weight_bits`
/// range ([-128, 127] at 8 bits).
FPGACNN_API void require_weights_fit_width(const int16_t* weights, std::size_t count, int weight_bits,
                                           const std::string& where);
/// The same for a layer's weights at its weight_bits.
FPGACNN_API void require_weights_fit_width(const QuantizedLayer& layer, const std::string& where);

/// Checks `quantized` against the arithmetic contract's invariants (docs/arithmetic.md), layer by
/// layer in network order: exponents within the contract's range; parameter counts that match the
/// shapes (parameters on conv layers only); each layer's input exponent equal to its producer's output
/// exponent (layer 0: the network's input exponent); a route's inputs sharing its output exponent;
/// maxpool, reorg, route and region keeping their exponent; conv bias and output shifts in range;
/// storage widths of 16 or 8 bits (with WidthScope::CpuStudy also the study widths 6 and 4), carried
/// unchanged by maxpool / reorg / region, shared by a route's inputs, 16 for the network input, and
/// weights that fit their width.
/// Throws Error "<where>: layer <i> (<kind>, cfg line <n>): <broken rule>; <fix>". The quantized file
/// reader and writer, calibrate(), the int16 engine and the device path (build_command_list,
/// DeviceQueue) all call it, so a model that breaks the contract is refused on every backend, also
/// when it was built in memory (the devices run what they are given).
/// The scope (which storage widths validate_quantized_network accepts):
enum class WidthScope {
    Storage,   ///< model files and devices: 16 or 8 bits (arith::is_storage_width)
    CpuStudy,  ///< calibration and the CPU int16 engine: also arith::is_study_width (--explore)
};
/// Checks `quantized` as described at WidthScope above; throws Error naming the layer and the rule.
FPGACNN_API void validate_quantized_network(const QuantizedNetwork& quantized, const std::string& where,
                                            WidthScope scope = WidthScope::Storage);

}  // namespace fpgacnn

// A network quantized to int16 dynamic fixed point (docs/arithmetic.md): per layer the exponents
// of input, output, weights and biases, and the int16 parameters. Produced by calibration
// (fpgacnn-quantize), stored in a quantized model file, executed by the CPU int16 backend and the
// FPGA kernel with identical results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn {

struct QuantizedLayer {
    int input_q = 0;   // exponent of the layer's input activations (value = int * 2^-q)
    int output_q = 0;  // exponent of its output activations
    // Convolutional layers only:
    int weight_q = 0;
    int bias_q = 0;
    /// Storage widths (arith::kDataBits or arith::kNarrowBits, docs/arithmetic.md "Per-layer
    /// widths"): of this layer's output activations (every layer kind; route / reorg / maxpool /
    /// region carry their input's) and, on conv layers, of the weights. The values stay int16 in
    /// memory here; an 8-bit one lies in [-128, 127].
    int output_bits = 16;
    int weight_bits = 16;
    std::vector<int16_t> weights;  // [filters][channels][size][size], darknet order
    std::vector<int16_t> biases;   // [filters]
};

struct QuantizedNetwork {
    Network network;   // the float IR (shapes, layer kinds; float parameters kept for reports)
    int input_q = 14;  // the letterboxed image in [0, 1] at a fixed exponent
    std::vector<QuantizedLayer> layers;  // one per network layer
};

/// Checks `quantized` against the arithmetic contract's invariants (docs/arithmetic.md), layer by
/// layer in network order: exponents within the contract's range; parameter counts that match the
/// shapes (parameters on conv layers only); each layer's input exponent equal to its producer's output
/// exponent (layer 0: the network's input exponent); a route's inputs sharing its output exponent;
/// maxpool, reorg, route and region keeping their exponent; conv bias and output shifts in range.
/// Throws Error "<where>: layer <i> (<kind>, cfg line <n>): <broken rule>; <fix>". The quantized file
/// reader and writer, calibrate(), the int16 engine and the device path (build_command_list,
/// DeviceQueue) all call it, so a model that breaks the contract is refused on every backend, also
/// when it was built in memory (the devices run what they are given).
void validate_quantized_network(const QuantizedNetwork& quantized, const std::string& where);

}  // namespace fpgacnn

// Consistency of a QuantizedNetwork with its float IR: shared by the writer (refuse to write a
// broken file) and the reader (refuse to load one).
#pragma once

#include <cstddef>
#include <string>

#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

/// Number of int16 weights a conv layer holds ([filters][channels][size][size]).
std::size_t conv_weight_count(const Layer& layer);

/// Throws Error prefixed with `where` when exponents are outside the contract's range, counts do
/// not match the layer shapes, or a non-conv layer carries parameters.
void check_quantized_layers(const QuantizedNetwork& quantized, const std::string& where);

}  // namespace fpgacnn

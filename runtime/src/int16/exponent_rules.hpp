// The exponent rules of docs/arithmetic.md that make a QuantizedNetwork runnable bit-exactly
// (validate_quantized_network, shared with the file reader and calibration), plus the conv shape
// checks of the int16 kernels.
#pragma once

#include <cstddef>

#include "fpgacnn/quantized.hpp"

namespace fpgacnn::int16_detail {

/// Throws Error naming the first layer that breaks a rule (and the fix).
void check_exponent_rules(const QuantizedNetwork& network);

/// The storage width of what layer `index` reads from its predecessor: that layer's output width,
/// or for layer 0 the network input's (always arith::kDataBits).
int layer_input_bits(const QuantizedNetwork& network, std::size_t index);

}  // namespace fpgacnn::int16_detail

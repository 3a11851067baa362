// The exponent rules of docs/arithmetic.md that make a QuantizedNetwork runnable bit-exactly:
// each layer's input exponent is its producer's output exponent; route sources share one
// exponent; maxpool, reorg and region keep theirs; conv shifts stay in range.
#pragma once

#include "fpgacnn/quantized.hpp"

namespace fpgacnn::int16_detail {

/// Throws Error naming the first layer that breaks a rule (and the fix).
void check_exponent_rules(const QuantizedNetwork& network);

}  // namespace fpgacnn::int16_detail

// The host's logistic step of a conv with activation=logistic on the fixed-point paths: the conv runs
// linear (on the kernel or the int16 engine) with its output at output_q, then every value is
// dequantized, passed through darknet's logistic in double and requantized at the same exponent and
// width (docs/arithmetic.md, "Activations in fixed point"). One scalar function: every ISA path and
// every device gives the same bits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fpgacnn::int16_detail {

/// `data` holds `count` values at exponent `q`, `bits` wide; replaced by their logistic, rounded half up
/// at exponent `q` and saturated to `bits`.
void int16_logistic_in_place(int16_t* data, std::size_t count, int q, int bits);

}  // namespace fpgacnn::int16_detail

// The CPU int16 backend's layer operations on raw CHW int16 buffers, exactly per
// docs/arithmetic.md. The FPGA kernel computes the same bits; tests compare them.
#pragma once

#include <cstdint>

#include "fpgacnn/network.hpp"

namespace fpgacnn {

/// Instruction-set paths of the int16 conv; every path gives identical bits.
enum class Int16Isa { Scalar, Avx2, Avx512Vnni, Neon };
const char* isa_name(Int16Isa isa);
/// The best path this CPU supports (run-time dispatch).
Int16Isa best_int16_isa();
bool int16_isa_supported(Int16Isa isa);

/// One conv layer in fixed point. Shapes from the IR; exponents from QuantizedLayer.
struct Int16ConvArgs {
    TensorShape input;
    TensorShape output;
    int size = 1;
    int stride = 1;
    int pad = 0;
    bool leaky = false;
    int bias_shift = 0;    // Qw + Qin - Qb
    int output_shift = 0;  // Qw + Qin - Qout
};

class ThreadPool;

}  // namespace fpgacnn

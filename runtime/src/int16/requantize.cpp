// The conv epilogue over a row of accumulators: dispatch to one ISA's vector version, or the
// scalar one, which is arith::requantize itself.
#include <algorithm>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16/conv_kernels.hpp"

namespace fpgacnn {
namespace int16_detail {

void requantize_scalar(const int32_t* acc, int16_t* out, std::size_t n, int shift, uint32_t activation) {
    for (std::size_t i = 0; i < n; ++i) out[i] = arith::requantize(acc[i], shift, activation);
}

void narrow_to_width(int16_t* out, std::size_t n, int bits) {
    if (bits == arith::kDataBits) return;
    // arith::saturate_to_width with the bounds out of the loop, in runs of 16: at -O2 GCC vectorises a
    // loop only when its trip count is a known multiple of the vector length (the very-cheap cost model).
    const int16_t high = arith::saturate_to_width(32767, bits);
    const int16_t low = arith::saturate_to_width(-32768, bits);
    const auto clamp = [low, high](int16_t v) { return std::min(std::max(v, low), high); };
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        for (std::size_t k = i; k < i + 16; ++k) out[k] = clamp(out[k]);
    }
    for (; i < n; ++i) out[i] = clamp(out[i]);
}

}  // namespace int16_detail

void int16_requantize(const int32_t* acc, int16_t* out, std::size_t n, int shift, bool leaky, Int16Isa isa) {
    int16_requantize_activation(acc, out, n, shift,
                                leaky ? arith::kActivationLeaky : arith::kActivationLinear, isa);
}

void int16_requantize_activation(const int32_t* acc, int16_t* out, std::size_t n, int shift,
                                 uint32_t activation, Int16Isa isa) {
    if (activation >= arith::kActivationCodes) {
        throw Error("int16_requantize_activation: activation code " + std::to_string(activation) +
                    " is not 0 (linear), 1 (leaky) or 2 (relu)");
    }
    if (shift < arith::kModelMinOutputShift || shift > arith::kModelMaxOutputShift) {
        throw Error("int16_requantize: shift " + std::to_string(shift) + " is outside [" +
                    std::to_string(arith::kModelMinOutputShift) + ", " +
                    std::to_string(arith::kModelMaxOutputShift) + "]");
    }
    if (!int16_isa_supported(isa)) {
        throw Error(std::string("int16_requantize: this CPU does not support the ") + isa_name(isa) +
                    " path");
    }
    switch (isa) {
#if defined(__x86_64__) || defined(__i386__)
        case Int16Isa::Avx2:
            return int16_detail::requantize_avx2(acc, out, n, shift, activation);
        case Int16Isa::Avx512Vnni:
            return int16_detail::requantize_avx512(acc, out, n, shift, activation);
#endif
#if defined(FPGACNN_INT16_NEON)
        case Int16Isa::Neon:
            return int16_detail::requantize_neon(acc, out, n, shift, activation);
#endif
        default:
            return int16_detail::requantize_scalar(acc, out, n, shift, activation);
    }
}

}  // namespace fpgacnn

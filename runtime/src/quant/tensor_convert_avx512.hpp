// The AVX-512 form of quantize_tensor's loop (tensor_convert.cpp chooses it at run time).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fpgacnn::detail {

#if defined(__x86_64__) || defined(__i386__)
/// out[i] = arith::saturate_to_width(arith::quantize_scaled(values[i], scale), bits), the same bits;
/// only on a CPU with AVX-512 F, BW and VL.
void quantize_tensor_avx512(const float* values, std::size_t count, double scale, int16_t* out, int bits);
#endif

}  // namespace fpgacnn::detail

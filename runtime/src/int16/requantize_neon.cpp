// The conv epilogue with NEON (AArch64 and ARMv7: only intrinsics both have). SRSHL (vrshlq) is
// exactly round half up with a wide intermediate, so it needs none of the x86 tricks: linear lanes
// shift in 32 bits (left shifts saturate, which saturates the same way), relu lanes are clamped at 0
// first, leaky negative lanes
// multiply and shift in 64 bits, then saturating narrows give saturate16. Tested under qemu
// (scripts/cross-test.sh); -mfpu=neon on 32-bit ARM as for conv_band_neon.cpp.
#if defined(__ARM_NEON)

#include <arm_neon.h>

#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16/conv_kernels.hpp"

namespace fpgacnn::int16_detail {

namespace {

inline int16x4_t requantize4(int32x4_t acc, int shift, uint32_t activation) {
    if (activation == arith::kActivationRelu) acc = vmaxq_s32(acc, vdupq_n_s32(0));
    const int32x4_t linear =
        shift > 0 ? vrshlq_s32(acc, vdupq_n_s32(-shift)) : vqshlq_s32(acc, vdupq_n_s32(-shift));
    if (activation != arith::kActivationLeaky) return vqmovn_s32(linear);
    const int32x2_t k = vdup_n_s32(arith::kLeakyMultiplier);
    const int64x2_t right = vdupq_n_s64(-(arith::kLeakyShift + shift));
    const int64x2_t low = vrshlq_s64(vmull_s32(vget_low_s32(acc), k), right);
    const int64x2_t high = vrshlq_s64(vmull_s32(vget_high_s32(acc), k), right);
    const int32x4_t leaky_result = vcombine_s32(vqmovn_s64(low), vqmovn_s64(high));
    const uint32x4_t negative = vcltq_s32(acc, vdupq_n_s32(0));
    return vqmovn_s32(vbslq_s32(negative, leaky_result, linear));
}

}  // namespace

void requantize_neon(const int32_t* acc, int16_t* out, std::size_t n, int shift, uint32_t activation) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const int16x4_t a = requantize4(vld1q_s32(acc + i), shift, activation);
        const int16x4_t b = requantize4(vld1q_s32(acc + i + 4), shift, activation);
        vst1q_s16(out + i, vcombine_s16(a, b));
    }
    for (; i < n; ++i) out[i] = arith::requantize(acc[i], shift, activation);
}

}  // namespace fpgacnn::int16_detail

#endif

// The int16 dynamic fixed-point arithmetic contract (docs/arithmetic.md), as plain C++ on
// fixed-width integers so that Vitis HLS synthesises it and the native build runs it unchanged.
// The FPGA kernel, the emu device and the CPU int16 backend all compute exactly this; a SIMD path
// may reorder the accumulation (int32 wrap-around is associative) but must not change anything else.
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/contract.hpp"  // kContractVersion, exponent and shift ranges

namespace fpgacnn {
namespace arith {

/// Leaky ReLU slope 0.1 as 13107 / 2^17 = 0.09999847 (the published design's 0xCCC / 2^15 is 0.09997559).
static const int32_t kLeakyMultiplier = 13107;
static const int kLeakyShift = 17;

/// Wrapping int32 multiply-accumulate: acc + w * x modulo 2^32. The product of two int16 always fits
/// in int32; the sum is done in uint32 so that wrap-around is defined behaviour (and the same in
/// every order). Calibration keeps real data far from the wrap (reported as headroom).
inline int32_t mac(int32_t acc, int16_t w, int16_t x) {
    const int32_t product = static_cast<int32_t>(w) * static_cast<int32_t>(x);
    return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(product));
}

/// Two products of one multiplier (contract.hpp, kPairShift): x0 * w and x1 * w for 8-bit x0, x1, w,
/// from the single product (x1 * 2^kPairShift + x0) * w, as a DSP computes it with the packed operand
/// from its pre-adder. Every intermediate fits int32 (|packed| < 2^23, |product| < 2^30).
inline void pair_products(int16_t x0, int16_t x1, int16_t w, int32_t& p0, int32_t& p1) {
    const int32_t packed = static_cast<int32_t>(x1) * (static_cast<int32_t>(1) << kPairShift) + x0;
    const int32_t product = packed * static_cast<int32_t>(w);
    const uint32_t field_mask = (static_cast<uint32_t>(1) << kPairShift) - 1u;
    const uint32_t sign_bit = static_cast<uint32_t>(1) << (kPairShift - 1);
    const uint32_t field = static_cast<uint32_t>(product) & field_mask;
    p0 = static_cast<int32_t>(field) - static_cast<int32_t>((field & sign_bit) << 1);
    p1 = (product - p0) >> kPairShift;  // exact: product - p0 is x1 * w * 2^kPairShift
}

/// acc0 + x0 * w and acc1 + x1 * w (wrapping, as mac) through one multiplier: pair_products.
inline void mac_pair(int32_t& acc0, int32_t& acc1, int16_t w, int16_t x0, int16_t x1) {
    int32_t p0, p1;
    pair_products(x0, x1, w, p0, p1);
    acc0 = static_cast<int32_t>(static_cast<uint32_t>(acc0) + static_cast<uint32_t>(p0));
    acc1 = static_cast<int32_t>(static_cast<uint32_t>(acc1) + static_cast<uint32_t>(p1));
}

/// The bias at the accumulator's exponent: b * 2^bias_shift with bias_shift = Qw + Qin - Qb >= 0
/// (a model keeps bias_shift <= kModelMaxBiasShift, so the result is exact in int32).
inline int32_t align_bias(int16_t bias, int bias_shift) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<int32_t>(bias)) << bias_shift);
}

/// Divides by 2^shift rounding to nearest, ties toward +infinity (floor(v / 2^shift + 1/2));
/// a negative shift multiplies (exact: |v| < 2^48 and shift >= -15 here).
inline int64_t round_shift(int64_t v, int shift) {
    if (shift > 0) return (v + (static_cast<int64_t>(1) << (shift - 1))) >> shift;
    if (shift < 0) return v * (static_cast<int64_t>(1) << (-shift));
    return v;
}

/// Clamps to int16; outputs saturate, they never wrap.
inline int16_t saturate16(int64_t v) {
    if (v > 32767) return 32767;
    if (v < -32768) return -32768;
    return static_cast<int16_t>(v);
}

/// Clamps to a signed `bits`-wide value (bits = kDataBits or kNarrowBits, or on the CPU a study
/// width), held in an int16: an 8-bit output saturates to [-128, 127] and is stored as int8 by the
/// caller; a 6-bit one saturates to [-32, 31].
inline int16_t saturate_to_width(int64_t v, int bits) {
    if (bits == kNarrowBits) {
        if (v > 127) return 127;
        if (v < -128) return -128;
        return static_cast<int16_t>(v);
    }
    if (is_study_width(bits)) {
        // Only the CPU backend gets here: check_command refuses these widths on the kernel.
        const int64_t high = (static_cast<int64_t>(1) << (bits - 1)) - 1;
        if (v > high) return static_cast<int16_t>(high);
        if (v < -high - 1) return static_cast<int16_t>(-high - 1);
        return static_cast<int16_t>(v);
    }
    return saturate16(v);
}

/// From the accumulator (exponent Qacc = Qw + Qin) to the output (exponent Qout), with the
/// activation (kActivation* code; `true` converts to kActivationLeaky) folded into the same single
/// rounding: shift = Qacc - Qout.
///   linear:            round(acc / 2^shift)
///   leaky, acc >= 0:   round(acc / 2^shift)
///   leaky, acc < 0:    round(acc * 13107 / 2^(17 + shift))
///   relu, acc >= 0:    round(acc / 2^shift)
///   relu, acc < 0:     0 (leaky with slope 0)
inline int16_t requantize(int32_t acc, int shift, uint32_t activation) {
    if (acc < 0 && activation == kActivationRelu) return 0;
    if (acc < 0 && activation == kActivationLeaky) {
        return saturate16(round_shift(static_cast<int64_t>(acc) * kLeakyMultiplier, kLeakyShift + shift));
    }
    return saturate16(round_shift(acc, shift));
}

/// requantize() with the output saturated to `bits` (16, 8 or a study width) instead of 16: the same single
/// rounding, so an 8-bit output is exactly requantize()'s value clamped to [-128, 127].
inline int16_t requantize_to_width(int32_t acc, int shift, uint32_t activation, int bits) {
    if (acc < 0 && activation == kActivationRelu) return 0;
    if (acc < 0 && activation == kActivationLeaky) {
        return saturate_to_width(
            round_shift(static_cast<int64_t>(acc) * kLeakyMultiplier, kLeakyShift + shift), bits);
    }
    return saturate_to_width(round_shift(acc, shift), bits);
}

/// A [shortcut]'s exact sum (docs/arithmetic.md "Shortcut on int16") at Qs = max(Qa, Qb): a at Qa plus
/// b at Qb, the coarser operand shifted up by |align| = |Qa - Qb| (align > 0: b, align < 0: a). With
/// |align| <= 32 the sum stays below 2^48.
inline int64_t shortcut_sum(int16_t a, int16_t b, int align) {
    const int a_shift = align < 0 ? -align : 0;
    const int b_shift = align > 0 ? align : 0;
    return static_cast<int64_t>(a) * (static_cast<int64_t>(1) << a_shift) +
           static_cast<int64_t>(b) * (static_cast<int64_t>(1) << b_shift);
}

/// A shortcut's sum (exponent Qs) to its output (Qout, shift = Qs - Qout >= -kShortcutMaxOutputGain) with
/// the activation folded into the one rounding exactly as requantize_to_width folds it, saturated to
/// `bits`; in 64 bits (|sum| < 2^48, so the leaky product stays below 2^62).
inline int16_t requantize_sum(int64_t sum, int shift, uint32_t activation, int bits) {
    if (activation == kActivationRelu && sum < 0) return 0;
    if (activation == kActivationLeaky && sum < 0) {
        return saturate_to_width(round_shift(sum * kLeakyMultiplier, kLeakyShift + shift), bits);
    }
    return saturate_to_width(round_shift(sum, shift), bits);
}

/// The weight-gradient (WG) accumulator step (contract 6): acc + e * x in 64 bits, wrapping like mac()
/// so that every order gives the same bits. A WG sum runs over out_h * out_w * batch products of two
/// int16 (|e * x| <= 2^30); check_command keeps that count <= 2^32, so the sum stays below 2^62 and
/// never actually wraps. int32 would not do: 416 x 416 products already reach 2^47.
inline int64_t mac64(int64_t acc, int16_t e, int16_t x) {
    const int32_t product = static_cast<int32_t>(e) * static_cast<int32_t>(x);
    return static_cast<int64_t>(static_cast<uint64_t>(acc) +
                                static_cast<uint64_t>(static_cast<int64_t>(product)));
}

/// A WG sum (exponent Qx + Qe) to its int16 gradient (exponent Qg): round(acc / 2^shift) with
/// shift = Qx + Qe - Qg, ties toward +infinity as round_shift, saturated to int16. Written without the
/// rounding addend so that no |acc| < 2^63 can overflow; a negative shift saturates before it multiplies.
inline int16_t requantize_gradient(int64_t acc, int shift) {
    if (shift > 0) {
        // floor(acc / 2^s + 1/2) = floor(acc / 2^s) + bit s-1 of acc (arithmetic shifts floor).
        return saturate16((acc >> shift) + ((acc >> (shift - 1)) & 1));
    }
    if (acc > 32767 || acc < -32768) return saturate16(acc);
    return saturate16(acc * (static_cast<int64_t>(1) << (-shift)));
}

/// Float to fixed point at exponent q: round half up, saturate (used for weights, biases, input).
/// Written with a double multiply and floor so that every compiler gives the same bits.
int16_t quantize(float value, int q);

/// quantize() with 2^q given as `scale` (ldexp(1.0, q), exact): the same double multiply and add,
/// so array conversions compute the power of two once instead of per value.
inline int16_t quantize_scaled(float value, double scale) {
    if (!(value == value)) return 0;  // NaN maps to 0 rather than to an undefined conversion
    const double scaled = static_cast<double>(value) * scale + 0.5;
    // Saturating before the floor equals saturating after it (the bounds are integers); inside
    // them the floor is a truncation corrected for negative fractions, without a libm call.
    if (scaled >= 32767.0) return 32767;
    if (scaled < -32768.0) return -32768;
    const int32_t truncated = static_cast<int32_t>(scaled);
    return static_cast<int16_t>(truncated - (scaled < static_cast<double>(truncated) ? 1 : 0));
}

/// quantize() saturated to `bits` (16 or 8): the same rounding, then the narrower clamp.
int16_t quantize_to_width(float value, int q, int bits);

/// Fixed point back to float: v * 2^-q (exact in float for |v| < 2^24).
float dequantize(int16_t value, int q);

}  // namespace arith
}  // namespace fpgacnn

// A start-up check of a SIMD path against the scalar contract. The AVX-512 and NEON paths cannot
// be run on every development machine, so before best_int16_isa() picks a path it proves, on a few
// small convs and the requantize edge cases, that the path gives the reference bits; a path that
// fails is skipped (with a warning) instead of silently giving different detections.
#include <cstdint>
#include <vector>

#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {

namespace {

// A fixed linear congruential sequence: the same data on every machine, no <random> needed.
class Sequence {
public:
    int16_t next() {
        state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<int16_t>(static_cast<uint16_t>(state_ >> 40));
    }

private:
    uint64_t state_ = 12345;
};

bool requantize_matches(Int16Isa isa) {
    std::vector<int32_t> acc = {
        0,     1,      -1,      2147483647, -2147483647 - 1, 15,         -15, 65535, -65536, -65537,
        32767, -32768, 1 << 20, -(1 << 20), 123456789,       -123456789, 7,   -7,    3,      -3};
    Sequence sequence;
    for (int i = 0; i < 45; ++i) {
        acc.push_back(
            static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint16_t>(sequence.next())) << 16 |
                                 static_cast<uint16_t>(sequence.next())));
    }
    std::vector<int16_t> out(acc.size());
    for (int shift : {-15, -3, 0, 1, 2, 5, 14, 17, 30, 31}) {
        for (uint32_t activation = 0; activation < arith::kActivationCodes; ++activation) {
            int16_requantize_activation(acc.data(), out.data(), acc.size(), shift, activation, isa);
            for (std::size_t i = 0; i < acc.size(); ++i) {
                if (out[i] != arith::requantize(acc[i], shift, activation)) return false;
            }
        }
    }
    return true;
}

// bits 8: 8-bit inputs and weights, which AVX-512 VNNI multiplies on its u8 x s8 path.
bool conv_matches(Int16Isa isa, TensorShape input, int filters, int size, int stride, int pad,
                  uint32_t activation, int output_shift, int bits = arith::kDataBits,
                  int output_bits = arith::kDataBits) {
    Int16ConvArgs args;
    args.input = input;
    args.size = size;
    args.stride = stride;
    args.pad = pad;
    args.leaky = activation == arith::kActivationLeaky;
    args.relu = activation == arith::kActivationRelu;
    args.bias_shift = 3;
    args.output_shift = output_shift;
    args.output = {filters, (input.h + 2 * pad - size) / stride + 1, (input.w + 2 * pad - size) / stride + 1};
    args.input_bits = args.weight_bits = bits;
    args.output_bits = output_bits;
    Sequence sequence;
    const int narrowing = arith::kDataBits - bits;  // the top bits of a 16-bit value: in the width's range
    std::vector<int16_t> weights(args.weight_count()), biases(static_cast<std::size_t>(filters));
    std::vector<int16_t> data(input.size());
    for (int16_t& v : weights) v = static_cast<int16_t>(sequence.next() >> narrowing);
    for (int16_t& v : biases) v = sequence.next();
    for (int16_t& v : data) v = static_cast<int16_t>(sequence.next() >> narrowing);
    std::vector<int16_t> expected(args.output.size()), got(args.output.size());
    int16_conv_reference(args, weights.data(), biases.data(), data.data(), expected.data());
    Int16PackedConv conv(args, weights.data(), biases.data(), isa);
    conv.run(data.data(), got.data());
    return got == expected;
}

}  // namespace

bool int16_isa_self_test(Int16Isa isa) {
    if (!int16_isa_supported(isa)) return false;
    return requantize_matches(isa) &&
           conv_matches(isa, {5, 7, 9}, 37, 3, 1, 1, arith::kActivationLeaky, 20) &&
           conv_matches(isa, {16, 6, 6}, 40, 1, 1, 0, arith::kActivationLinear, 12) &&
           conv_matches(isa, {3, 9, 8}, 33, 3, 2, 0, arith::kActivationRelu, 24) &&
           conv_matches(isa, {34, 11, 10}, 70, 3, 1, 1, arith::kActivationLeaky, 26) &&
           conv_matches(isa, {13, 9, 7}, 37, 3, 2, 1, arith::kActivationRelu, 2, arith::kNarrowBits) &&
           conv_matches(isa, {260, 3, 18}, 33, 1, 1, 0, arith::kActivationLinear, 8, arith::kNarrowBits,
                        arith::kNarrowBits);
}

}  // namespace fpgacnn

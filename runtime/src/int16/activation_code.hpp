// Which cfg activations the fixed-point paths run, and their kernel codes: one place for the rule and
// for the message that refuses the others.
#pragma once

#include <cstdint>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn::int16_detail {

/// linear, leaky and relu fold into the requantization (arith::kActivation*); logistic and mish have no
/// code (docs/arithmetic.md, "Activations"): Error naming `what` (the layer) and the way out.
inline uint32_t fixed_point_activation(Activation activation, const std::string& what) {
    switch (activation) {
        case Activation::Linear:
            return arith::kActivationLinear;
        case Activation::Leaky:
            return arith::kActivationLeaky;
        case Activation::Relu:
            return arith::kActivationRelu;
        case Activation::Logistic:
        case Activation::Mish:
            break;
    }
    throw Error(what + " has activation=" + activation_name(activation) +
                ", which the fixed-point paths (int16, int8, mixed) do not implement (linear, leaky and "
                "relu are, and logistic on a convolutional layer); run this network with --precision float");
}

/// A conv's code: fixed_point_activation's, and logistic runs linear on the kernel / the int16 conv with
/// the host's logistic step on its output after it (dequantize -> darknet's logistic -> requantize at the
/// same exponent, int16_logistic_in_place; docs/arithmetic.md, "Activations").
inline uint32_t conv_fixed_point_activation(Activation activation, const std::string& what) {
    if (activation == Activation::Logistic) return arith::kActivationLinear;
    return fixed_point_activation(activation, what);
}

/// True for a conv layer whose output the host passes through the logistic after its command.
inline bool has_host_logistic(const Layer& layer) {
    return layer.type == LayerType::Convolutional && layer.conv().activation == Activation::Logistic;
}

}  // namespace fpgacnn::int16_detail

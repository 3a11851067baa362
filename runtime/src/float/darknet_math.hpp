// darknet's scalar activations, reproduced expression for expression: darknet evaluates them in
// double (the constants are double literals) and rounds to float once, so using float constants
// here would drift by an ulp from libdarknet on some inputs.
#pragma once

#include <cmath>

#include "fpgacnn/network.hpp"

namespace fpgacnn::detail {

inline float darknet_leaky(float x) { return x > 0 ? x : static_cast<float>(0.1 * static_cast<double>(x)); }

inline float darknet_logistic(float x) {
    return static_cast<float>(1. / (1. + std::exp(-static_cast<double>(x))));
}

inline float darknet_relu(float x) { return x * static_cast<float>(x > 0); }

// AlexeyAB's mish_activate: x * tanh_activate(softplus_activate(x, 20)), softplus in float (expf,
// logf) and tanh as 2/(1 + exp(-2x)) - 1 in double.
inline float darknet_mish(float x) {
    constexpr float kThreshold = 20;
    float softplus = x;
    if (x < -kThreshold) {
        softplus = std::exp(x);
    } else if (!(x > kThreshold)) {
        softplus = std::log(std::exp(x) + 1.0f);
    }
    const double tanh = 2 / (1 + std::exp(-2 * static_cast<double>(softplus))) - 1;
    return x * static_cast<float>(tanh);
}

/// darknet's activate(x, a) for every Activation.
inline float darknet_activate(float x, Activation activation) {
    switch (activation) {
        case Activation::Linear:
            return x;
        case Activation::Leaky:
            return darknet_leaky(x);
        case Activation::Relu:
            return darknet_relu(x);
        case Activation::Logistic:
            return darknet_logistic(x);
        case Activation::Mish:
            return darknet_mish(x);
    }
    return x;
}

}  // namespace fpgacnn::detail

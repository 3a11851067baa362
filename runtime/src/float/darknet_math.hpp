// darknet's scalar activations, reproduced expression for expression: darknet evaluates them in
// double (the constants are double literals) and rounds to float once, so using float constants
// here would drift by an ulp from libdarknet on some inputs.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>

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

/// darknet's softmax(input, n, temp, stride) in place (blas.c): float max and sum, each
/// exp(x/temp - max/temp) evaluated in double and rounded to float.
inline void darknet_softmax(float* values, int count, float temperature, std::size_t stride) {
    float largest = -FLT_MAX;
    for (int i = 0; i < count; ++i) largest = values[i * stride] > largest ? values[i * stride] : largest;
    float sum = 0;
    for (int i = 0; i < count; ++i) {
        const float e = static_cast<float>(
            std::exp(static_cast<double>(values[i * stride] / temperature - largest / temperature)));
        sum += e;
        values[i * stride] = e;
    }
    for (int i = 0; i < count; ++i) values[i * stride] /= sum;
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

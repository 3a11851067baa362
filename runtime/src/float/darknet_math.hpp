// darknet's scalar activations, reproduced expression for expression: darknet evaluates them in
// double (the constants are double literals) and rounds to float once, so using float constants
// here would drift by an ulp from libdarknet on some inputs.
#pragma once

#include <cmath>

namespace fpgacnn::detail {

inline float darknet_leaky(float x) { return x > 0 ? x : static_cast<float>(0.1 * static_cast<double>(x)); }

inline float darknet_logistic(float x) {
    return static_cast<float>(1. / (1. + std::exp(-static_cast<double>(x))));
}

}  // namespace fpgacnn::detail

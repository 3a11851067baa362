// darknet's gradient_array: the activation's derivative written in terms of its OUTPUT (activations.h),
// so training needs no copy of the pre-activation values. Mish's derivative needs its input, so it
// is refused where training starts (FloatTrainer).
#pragma once

#include <cstddef>

#include "fpgacnn/network.hpp"

namespace fpgacnn::train {

/// d activation / d input at the point whose activated value is `y`.
inline float activation_gradient(float y, Activation activation) {
    switch (activation) {
        case Activation::Linear:
            return 1;
        case Activation::Leaky:
            return y > 0 ? 1.0f : 0.1f;
        case Activation::Relu:
            return static_cast<float>(y > 0);
        case Activation::Logistic:
            return (1 - y) * y;
        case Activation::Mish:
            break;
    }
    return 1;
}

/// delta[i] *= activation_gradient(output[i]) (gradient_array).
inline void apply_activation_gradient(const float* output, std::size_t count, Activation activation,
                                      float* delta) {
    if (activation == Activation::Linear) return;
    for (std::size_t i = 0; i < count; ++i) delta[i] *= activation_gradient(output[i], activation);
}

}  // namespace fpgacnn::train

#include "train/adam_update.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

namespace fpgacnn::train {

namespace {

// adam_update_gpu on one array, each float operation as darknet's kernels do it.
void adam_array(std::vector<float>& values, std::vector<float>& updates, std::vector<float>& m,
                std::vector<float>& v, const AdamStep& step) {
    const float decay = -step.decay * static_cast<float>(step.images);
    // powf with an int exponent, as adam_kernel computes it (t converted to float).
    const float m_correction = 1.f - std::pow(step.b1, static_cast<float>(step.t));
    const float v_correction = 1.f - std::pow(step.b2, static_cast<float>(step.t));
    for (std::size_t i = 0; i < values.size(); ++i) {
        m[i] *= step.b1;
        v[i] *= step.b2;
        const float d = updates[i] + decay * values[i];
        m[i] += (1 - step.b1) * d;
        v[i] += (1 - step.b2) * (d * d);
        const float mhat = m[i] / m_correction;
        const float vhat = v[i] / v_correction;
        values[i] = values[i] + step.learning_rate * mhat / (std::sqrt(vhat) + step.eps);
        updates[i] = 0;
    }
}

}  // namespace

void adam_update(ConvParams& conv, ConvGradients& gradients, const AdamStep& step) {
    adam_array(conv.weights, gradients.weight_updates, gradients.weight_m, gradients.weight_v, step);
    adam_array(conv.biases, gradients.bias_updates, gradients.bias_m, gradients.bias_v, step);
    if (!gradients.scale_updates.empty())
        adam_array(conv.bn_scales, gradients.scale_updates, gradients.scale_m, gradients.scale_v, step);
}

}  // namespace fpgacnn::train

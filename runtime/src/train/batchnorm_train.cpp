// Each expression keeps darknet's types (float sums, pow/sqrt in double) so results agree to the last
// bits where the summation order is the same. Note the two epsilons: the forward divides by
// sqrt(var) + 1e-6, the backward by sqrt(var + 1e-5), as darknet does.
#include "train/batchnorm_train.hpp"

#include <cmath>
#include <cstddef>

namespace fpgacnn::train {

namespace {

std::size_t at(const BatchNormShape& p, int b, int c, int k) {
    return (static_cast<std::size_t>(b) * p.channels + c) * p.spatial + k;
}

}  // namespace

void batchnorm_forward_train(const BatchNormShape& p, const BatchNormParams& params, float* values,
                             BatchNormState& state) {
    const std::size_t count = static_cast<std::size_t>(p.batch) * p.channels * p.spatial;
    state.x.assign(values, values + count);
    state.mean.assign(p.channels, 0.0f);
    state.variance.assign(p.channels, 0.0f);
    const float mean_scale = static_cast<float>(1. / (p.batch * p.spatial));
    const float variance_scale = static_cast<float>(1. / (p.batch * p.spatial - 1));
    for (int c = 0; c < p.channels; ++c) {
        float sum = 0;
        for (int b = 0; b < p.batch; ++b)
            for (int k = 0; k < p.spatial; ++k) sum += values[at(p, b, c, k)];
        const float mean = sum * mean_scale;
        float squares = 0;
        for (int b = 0; b < p.batch; ++b) {
            for (int k = 0; k < p.spatial; ++k) {
                squares += static_cast<float>(std::pow(values[at(p, b, c, k)] - mean, 2));
            }
        }
        state.mean[c] = mean;
        state.variance[c] = squares * variance_scale;
    }
    for (int c = 0; c < p.channels; ++c) {
        // scal_cpu(.99) then axpy_cpu(.01): the float products darknet forms.
        params.rolling_mean[c] = params.rolling_mean[c] * 0.99f + 0.01f * state.mean[c];
        params.rolling_variance[c] = params.rolling_variance[c] * 0.99f + 0.01f * state.variance[c];
    }
    for (int b = 0; b < p.batch; ++b) {
        for (int c = 0; c < p.channels; ++c) {
            const double divisor = std::sqrt(static_cast<double>(state.variance[c])) + .000001f;
            for (int k = 0; k < p.spatial; ++k) {
                float& v = values[at(p, b, c, k)];
                v = static_cast<float>((v - state.mean[c]) / divisor);
            }
        }
    }
    state.x_norm.assign(values, values + count);
    for (int b = 0; b < p.batch; ++b) {
        for (int c = 0; c < p.channels; ++c) {
            const float scale = params.scales[c];
            const float bias = params.biases[c];
            for (int k = 0; k < p.spatial; ++k) values[at(p, b, c, k)] *= scale;
            for (int k = 0; k < p.spatial; ++k) values[at(p, b, c, k)] += bias;
        }
    }
}

void add_bias_gradient(const float* delta, int batch, int channels, int spatial,
                       std::vector<float>& bias_updates) {
    for (int b = 0; b < batch; ++b) {
        for (int c = 0; c < channels; ++c) {
            const float* plane = delta + (static_cast<std::size_t>(b) * channels + c) * spatial;
            float sum = 0;
            for (int k = 0; k < spatial; ++k) sum += plane[k];
            bias_updates[c] += sum;
        }
    }
}

void batchnorm_backward(const BatchNormShape& p, const std::vector<float>& scales,
                        const BatchNormState& state, float* delta, std::vector<float>& bias_updates,
                        std::vector<float>& scale_updates) {
    add_bias_gradient(delta, p.batch, p.channels, p.spatial, bias_updates);
    for (int c = 0; c < p.channels; ++c) {  // backward_scale_cpu
        float sum = 0;
        for (int b = 0; b < p.batch; ++b) {
            for (int k = 0; k < p.spatial; ++k) sum += delta[at(p, b, c, k)] * state.x_norm[at(p, b, c, k)];
        }
        scale_updates[c] += sum;
    }
    for (int b = 0; b < p.batch; ++b) {  // scale_bias on the delta
        for (int c = 0; c < p.channels; ++c) {
            for (int k = 0; k < p.spatial; ++k) delta[at(p, b, c, k)] *= scales[c];
        }
    }
    std::vector<float> mean_delta(p.channels);
    std::vector<float> variance_delta(p.channels);
    for (int c = 0; c < p.channels; ++c) {
        const float variance = state.variance[c];
        float sum = 0;
        float weighted = 0;
        for (int b = 0; b < p.batch; ++b) {
            for (int k = 0; k < p.spatial; ++k) {
                const std::size_t i = at(p, b, c, k);
                sum += delta[i];
                weighted += delta[i] * (state.x[i] - state.mean[c]);
            }
        }
        mean_delta[c] = static_cast<float>(sum * (-1. / std::sqrt(static_cast<double>(variance + .00001f))));
        variance_delta[c] = static_cast<float>(
            weighted * (-.5 * std::pow(static_cast<double>(variance + .00001f), static_cast<double>(-1.5f))));
    }
    const int n = p.spatial * p.batch;
    for (int b = 0; b < p.batch; ++b) {
        for (int c = 0; c < p.channels; ++c) {
            const double inverse_std = 1. / std::sqrt(static_cast<double>(state.variance[c] + .00001f));
            for (int k = 0; k < p.spatial; ++k) {
                const std::size_t i = at(p, b, c, k);
                delta[i] = static_cast<float>(delta[i] * inverse_std +
                                              variance_delta[c] * 2. * (state.x[i] - state.mean[c]) / n +
                                              mean_delta[c] / n);
            }
        }
    }
}

}  // namespace fpgacnn::train

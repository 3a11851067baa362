// fold_batchnorm: darknet's inference computes, per output map f,
//     y = (conv - mean[f]) / (sqrt(var[f]) + .000001f) * scale[f] + bias[f]
// where sqrt is the double-precision C function (darknet calls sqrt on a float). Folding gives
//     w' = w * k,  b' = bias - mean * k,  k = scale / (sqrt(var) + .000001f)
// computed in double and rounded once, which is the float closest to darknet's exact value.
#include <cmath>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "model/weights_format.hpp"

namespace fpgacnn {

namespace {

// A tiny rolling variance multiplies a weight by up to 1e6 / scale: huge but finite values are
// darknet's behaviour too, an overflow to inf is not a network anyone can run.
void require_finite(const Layer& layer, const std::vector<float>& values, const char* array) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (std::isfinite(values[i])) continue;
        throw Error(model::describe_conv_layer(layer) + ": folding batch-norm makes " + array + "[" +
                    std::to_string(i) + "] " + model::float_text(values[i]) +
                    " (scale / sqrt(rolling variance) overflows); the weights are corrupt, use another "
                    "checkpoint");
    }
}

void fold_layer(Layer& layer) {
    ConvParams& conv = layer.conv();
    const model::ConvArrayCounts counts = model::conv_array_counts(layer);
    if (conv.bn_scales.size() != counts.bn_each || conv.bn_mean.size() != counts.bn_each ||
        conv.bn_variance.size() != counts.bn_each || conv.biases.size() != counts.biases ||
        conv.weights.size() != counts.weights) {
        throw Error(model::describe_conv_layer(layer) +
                    ": batch-norm arrays do not match the layer's filters; load the weights again");
    }
    const std::size_t per_filter = counts.weights / counts.biases;
    constexpr double kEpsilon = static_cast<double>(.000001f);  // darknet adds the float literal
    for (std::size_t f = 0; f < counts.biases; ++f) {
        const double factor = static_cast<double>(conv.bn_scales[f]) /
                              (std::sqrt(static_cast<double>(conv.bn_variance[f])) + kEpsilon);
        for (std::size_t i = f * per_filter; i < (f + 1) * per_filter; ++i) {
            conv.weights[i] = static_cast<float>(static_cast<double>(conv.weights[i]) * factor);
        }
        conv.biases[f] = static_cast<float>(static_cast<double>(conv.biases[f]) -
                                            static_cast<double>(conv.bn_mean[f]) * factor);
    }
    require_finite(layer, conv.weights, "weights");
    require_finite(layer, conv.biases, "biases");
    conv.bn_scales.clear();
    conv.bn_mean.clear();
    conv.bn_variance.clear();
    conv.bn_scales.shrink_to_fit();
    conv.bn_mean.shrink_to_fit();
    conv.bn_variance.shrink_to_fit();
}

}  // namespace

void fold_batchnorm(Network& network) {
    for (Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& conv = layer.conv();
        // Already folded (or never loaded): nothing to merge, which makes folding idempotent.
        if (!conv.batch_normalize || conv.bn_scales.empty()) continue;
        fold_layer(layer);
    }
}

}  // namespace fpgacnn

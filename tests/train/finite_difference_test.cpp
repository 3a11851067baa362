// The trainer's gradients (batch-normalized convs in training mode, maxpool, upsample, route, reorg)
// against central finite differences of L = <network output, D>, for a sample of inputs and weights.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "model/cfg_parser.hpp"
#include "train/float_trainer.hpp"

namespace fpgacnn::train {
namespace {

const char* const kCfg = R"([net]
batch=2
width=6
height=6
channels=2
[convolutional]
batch_normalize=1
filters=4
size=3
pad=1
activation=leaky
[maxpool]
size=2
stride=2
[convolutional]
batch_normalize=1
filters=4
size=3
pad=1
activation=linear
[upsample]
stride=2
[route]
layers=0,3
[reorg]
stride=2
[convolutional]
filters=2
size=1
activation=logistic
)";

std::vector<float> draw_values(std::size_t count, float low, float high, std::mt19937& random) {
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float& v : values) v = distribution(random);
    return values;
}

FloatTrainer make_trainer(std::mt19937& random) {
    Network network = parse_darknet_cfg(kCfg, "fd.cfg");
    for (Layer& layer : network.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        ConvParams& conv = layer.conv();
        conv.weights =
            draw_values(static_cast<std::size_t>(conv.filters) * layer.input.c * conv.size * conv.size, -0.5f,
                        0.5f, random);
        conv.biases = draw_values(conv.filters, -0.1f, 0.1f, random);
        if (conv.batch_normalize) {
            conv.bn_scales = draw_values(conv.filters, 0.5f, 1.5f, random);
            conv.bn_mean.assign(conv.filters, 0.0f);
            conv.bn_variance.assign(conv.filters, 1.0f);
        }
    }
    network.weights_loaded = true;
    return FloatTrainer(std::move(network), read_training_options(model::parse_cfg_text(kCfg, "fd.cfg")));
}

double loss(FloatTrainer& trainer, const std::vector<float>& input, const std::vector<float>& d) {
    trainer.forward(input.data(), nullptr, 1);
    const std::vector<float>& out = trainer.output(static_cast<int>(trainer.network().layers.size()) - 1);
    double sum = 0;
    for (std::size_t i = 0; i < out.size(); ++i) sum += static_cast<double>(out[i]) * d[i];
    return sum;
}

/// max |numeric - analytic| over the sample, relative to the largest analytic value of the sample.
double worst_relative(const std::vector<double>& numeric, const std::vector<double>& analytic) {
    double largest = 0;
    double difference = 0;
    for (std::size_t i = 0; i < numeric.size(); ++i) {
        largest = std::max(largest, std::fabs(analytic[i]));
        difference = std::max(difference, std::fabs(numeric[i] - analytic[i]));
    }
    return difference / largest;
}

TEST(FiniteDifferences, InputAndWeightGradients) {
    std::mt19937 random(3);
    FloatTrainer trainer = make_trainer(random);
    std::vector<float> input = draw_values(trainer.network().input.size() * 2, 0.0f, 1.0f, random);
    const int last = static_cast<int>(trainer.network().layers.size()) - 1;
    const std::vector<float> d =
        draw_values(trainer.network().layers[last].output.size() * 2, -1.0f, 1.0f, random);

    loss(trainer, input, d);
    trainer.delta(last) = d;
    std::vector<float> input_delta(input.size(), 0.0f);
    trainer.backward(input_delta.data());
    const std::vector<float> weight_gradient = trainer.gradients(0).weight_updates;
    const std::vector<float> scale_gradient = trainer.gradients(2).scale_updates;

    constexpr float kStep = 1e-2f;
    std::vector<double> numeric;
    std::vector<double> analytic;
    const auto central = [&](float& value) {
        const float saved = value;
        value = saved + kStep;
        const double up = loss(trainer, input, d);
        value = saved - kStep;
        const double down = loss(trainer, input, d);
        value = saved;
        return (up - down) / (2 * kStep);
    };
    for (std::size_t k = 0; k < input.size(); k += 7) {
        numeric.push_back(central(input[k]));
        analytic.push_back(input_delta[k]);
    }
    std::vector<float>& weights = trainer.network().layers[0].conv().weights;
    for (std::size_t k = 0; k < weights.size(); k += 5) {
        numeric.push_back(central(weights[k]));
        analytic.push_back(weight_gradient[k]);
    }
    std::vector<float>& scales = trainer.network().layers[2].conv().bn_scales;
    for (std::size_t k = 0; k < scales.size(); ++k) {
        numeric.push_back(central(scales[k]));
        analytic.push_back(scale_gradient[k]);
    }
    EXPECT_LE(worst_relative(numeric, analytic), 2e-2);
}

}  // namespace
}  // namespace fpgacnn::train

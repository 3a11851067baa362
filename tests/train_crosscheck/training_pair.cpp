#include "training_pair.hpp"

#include <algorithm>
#include <cstddef>

#include "fpgacnn/darknet.hpp"
#include "model/cfg_parser.hpp"
#include "train/training_options.hpp"
#include "train/truth_boxes.hpp"

namespace fpgacnn::crosscheck {

namespace {

std::vector<float> uniform(std::size_t count, float low, float high, std::mt19937& random) {
    std::uniform_real_distribution<float> distribution(low, high);
    std::vector<float> values(count);
    for (float& v : values) v = distribution(random);
    return values;
}

void randomize(Layer& layer, std::mt19937& random) {
    ConvParams& conv = layer.conv();
    const auto filters = static_cast<std::size_t>(conv.filters);
    const float spread = std::sqrt(2.0f / static_cast<float>(layer.input.c * conv.size * conv.size));
    conv.weights = uniform(filters * layer.input.c * conv.size * conv.size, -spread, spread, random);
    conv.biases = uniform(filters, -0.1f, 0.1f, random);
    if (conv.batch_normalize) {
        conv.bn_scales = uniform(filters, 0.5f, 1.5f, random);
        conv.bn_mean = uniform(filters, -0.1f, 0.1f, random);
        conv.bn_variance = uniform(filters, 0.5f, 1.5f, random);
    }
}

std::vector<float> difference(const std::vector<float>& after, const std::vector<float>& before) {
    std::vector<float> change(after.size());
    for (std::size_t i = 0; i < after.size(); ++i) change[i] = after[i] - before[i];
    return change;
}

}  // namespace

train::FloatTrainer TrainingPair::make_trainer(const std::string& cfg_text, unsigned seed) {
    Network network = parse_darknet_cfg(cfg_text, "train-crosscheck.cfg");
    std::mt19937 random(seed);
    for (Layer& layer : network.layers) {
        if (layer.type == LayerType::Convolutional) randomize(layer, random);
    }
    network.weights_loaded = true;
    return train::FloatTrainer(std::move(network), train::read_training_options(model::parse_cfg_text(
                                                       cfg_text, "train-crosscheck.cfg")));
}

TrainingPair::TrainingPair(const std::string& cfg_text, unsigned seed)
    : trainer_(make_trainer(cfg_text, seed)), oracle_(cfg_text), random_(seed + 1) {
    const Network& net = trainer_.network();
    initial_.resize(net.layers.size());
    for (const Layer& layer : net.layers) {
        if (layer.type != LayerType::Convolutional) continue;
        oracle_.set_conv_parameters(layer.index, layer.conv());
        initial_[layer.index] = layer.conv();
    }
    input_ = uniform(net.input.size() * trainer_.batch(), 0.0f, 1.0f, random_);
    truth_.assign(static_cast<std::size_t>(trainer_.batch()) * train::kMaxTruthBoxes * train::kTruthFloats,
                  0.0f);
}

void TrainingPair::new_input() { input_ = uniform(input_.size(), 0.0f, 1.0f, random_); }

std::uint64_t TrainingPair::train_step(std::uint64_t seen) {
    const train::SolverOptions& solver = trainer_.options().solver;
    seen += static_cast<std::uint64_t>(solver.batch);
    forward(seen);
    backward();
    if ((seen / static_cast<std::uint64_t>(solver.batch)) % static_cast<std::uint64_t>(solver.subdivisions) ==
        0) {
        update(seen);
    }
    return seen;
}

float TrainingPair::forward(std::uint64_t seen) {
    const float cost = trainer_.forward(input_.data(), truth_.data(), seen);
    const bool has_loss = std::any_of(network().layers.begin(), network().layers.end(), [](const Layer& l) {
        return l.type == LayerType::Region || l.type == LayerType::Yolo;
    });
    if (!has_loss) {
        oracle_.forward(input_, std::vector<float>(), seen);
        return cost;
    }
    const auto ours = static_cast<std::size_t>(train::kMaxTruthBoxes) * train::kTruthFloats;
    const auto theirs = static_cast<std::size_t>(oracle_.truth_floats_per_image());
    std::vector<float> darknet_truth(theirs * static_cast<std::size_t>(trainer_.batch()), 0.0f);
    for (std::size_t b = 0; b < static_cast<std::size_t>(trainer_.batch()); ++b) {
        const auto from = truth_.begin() + static_cast<std::ptrdiff_t>(b * ours);
        std::copy(from, from + static_cast<std::ptrdiff_t>(std::min(ours, theirs)),
                  darknet_truth.begin() + static_cast<std::ptrdiff_t>(b * theirs));
    }
    oracle_.forward(input_, darknet_truth, seen);
    return cost;
}

void TrainingPair::set_random_last_delta() {
    const int last = static_cast<int>(network().layers.size()) - 1;
    const std::vector<float> delta = uniform(trainer_.delta(last).size(), -1.0f, 1.0f, random_);
    trainer_.delta(last) = delta;
    oracle_.set_delta(last, delta);
}

void TrainingPair::backward() {
    our_input_delta_.assign(input_.size(), 0.0f);
    trainer_.backward(our_input_delta_.data());
    oracle_.backward(darknet_input_delta_);
}

void TrainingPair::update(std::uint64_t seen) {
    trainer_.update(seen);
    oracle_.update();
}

WorstDifference TrainingPair::outputs() const {
    WorstDifference worst;
    for (const Layer& layer : network().layers) {
        worst.add(max_relative_difference(trainer_.output(layer.index), oracle_.output(layer.index)),
                  layer.index);
    }
    return worst;
}

WorstDifference TrainingPair::deltas() const {
    WorstDifference worst;
    for (const Layer& layer : network().layers) {
        worst.add(max_relative_difference(trainer_.delta(layer.index), oracle_.delta(layer.index)),
                  layer.index);
    }
    return worst;
}

WorstDifference TrainingPair::gradients() const {
    WorstDifference worst;
    for (const Layer& layer : network().layers) {
        if (layer.type != LayerType::Convolutional) continue;
        const train::ConvGradients& ours = trainer_.gradients(layer.index);
        worst.add(max_relative_difference(ours.weight_updates, oracle_.weight_updates(layer.index)),
                  layer.index);
        worst.add(max_relative_difference(ours.bias_updates, oracle_.bias_updates(layer.index)), layer.index);
        worst.add(max_relative_difference(ours.scale_updates, oracle_.scale_updates(layer.index)),
                  layer.index);
    }
    return worst;
}

double TrainingPair::input_delta() const {
    return max_relative_difference(our_input_delta_, darknet_input_delta_);
}

double parameter_change_difference(const ConvParams& before, const ConvParams& ours,
                                   const ConvParams& theirs) {
    double worst = 0;
    const auto check = [&](const std::vector<float>& b, const std::vector<float>& o,
                           const std::vector<float>& t) {
        worst = std::max(worst, max_relative_difference(difference(o, b), difference(t, b)));
    };
    check(before.weights, ours.weights, theirs.weights);
    check(before.biases, ours.biases, theirs.biases);
    check(before.bn_scales, ours.bn_scales, theirs.bn_scales);
    check(before.bn_mean, ours.bn_mean, theirs.bn_mean);
    check(before.bn_variance, ours.bn_variance, theirs.bn_variance);
    return worst;
}

WorstDifference TrainingPair::parameter_changes() const {
    WorstDifference worst;
    for (const Layer& layer : network().layers) {
        if (layer.type != LayerType::Convolutional) continue;
        worst.add(parameter_change_difference(initial_[layer.index], layer.conv(),
                                              oracle_.conv_parameters(layer.index)),
                  layer.index);
    }
    return worst;
}

}  // namespace fpgacnn::crosscheck

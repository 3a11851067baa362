#include "darknet_training_oracle.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <darknet.h>

#include "../crosscheck/stderr_silencer.hpp"

// Exported by libdarknet but not declared in darknet.h (activations.h): d activation / d input at output x.
extern "C" float gradient(float x, ACTIVATION a);

// libdarknet's free_network leaves net->workspace and cfg-parsing lists behind (darknet's leaks).
extern "C" const char* __lsan_default_suppressions() { return "leak:libdarknet.so\n"; }

namespace fpgacnn::crosscheck {

namespace {

std::vector<float> copy_out(const float* data, std::size_t count) {
    return data == nullptr ? std::vector<float>() : std::vector<float>(data, data + count);
}

void copy_in(const std::vector<float>& values, float* target, std::size_t count, const char* what) {
    if (values.size() != count)
        throw std::runtime_error(std::string("darknet oracle: wrong size of ") + what);
    std::copy(values.begin(), values.end(), target);
}

// backward_region_layer_gpu on the CPU arrays: the logistic's gradient on x, y and objectness, then the
// layer's delta added to the previous layer's.
void region_backward_gpu_way(const layer& l, network& net) {
    const int plane = l.w * l.h;
    for (int b = 0; b < l.batch; ++b) {
        for (int n = 0; n < l.n; ++n) {
            const int box = b * l.outputs + n * plane * (l.coords + l.classes + 1);
            for (int k = 0; k < 2 * plane; ++k) l.delta[box + k] *= gradient(l.output[box + k], LOGISTIC);
            const int objectness = box + l.coords * plane;
            for (int k = 0; k < plane; ++k)
                l.delta[objectness + k] *= gradient(l.output[objectness + k], LOGISTIC);
        }
    }
    if (net.delta == nullptr) return;
    for (int k = 0; k < l.batch * l.inputs; ++k) net.delta[k] += l.delta[k];
}

}  // namespace

struct DarknetTrainingOracle::Impl {
    network* net = nullptr;
    std::vector<float> input_delta;
    const layer& at(int i) const {
        if (i < 0 || i >= net->n) throw std::runtime_error("darknet oracle: no layer " + std::to_string(i));
        return net->layers[i];
    }
};

DarknetTrainingOracle::DarknetTrainingOracle(const std::string& cfg_text) : impl_(std::make_unique<Impl>()) {
    static std::atomic<int> counter{0};
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() /
        ("fpgacnn-train-oracle-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".cfg");
    {
        std::ofstream out(path);
        out << cfg_text;
        if (!out) throw std::runtime_error("darknet oracle: cannot write " + path.string());
    }
    const std::string path_text = path.string();
    std::vector<char> name(path_text.begin(), path_text.end());
    name.push_back('\0');
    {
        StderrSilencer quiet;
        impl_->net = parse_network_cfg(name.data());
    }
    std::filesystem::remove(path);
    if (impl_->net == nullptr) throw std::runtime_error("darknet oracle: parse_network_cfg failed");
}

DarknetTrainingOracle::~DarknetTrainingOracle() {
    if (impl_->net != nullptr) free_network(impl_->net);
}

int DarknetTrainingOracle::batch() const { return impl_->net->batch; }
int DarknetTrainingOracle::layer_count() const { return impl_->net->n; }

void DarknetTrainingOracle::set_conv_parameters(int i, const ConvParams& conv) {
    const layer& l = impl_->at(i);
    copy_in(conv.weights, l.weights, static_cast<std::size_t>(l.nweights), "weights");
    copy_in(conv.biases, l.biases, static_cast<std::size_t>(l.n), "biases");
    if (l.batch_normalize) {
        copy_in(conv.bn_scales, l.scales, static_cast<std::size_t>(l.n), "scales");
        copy_in(conv.bn_mean, l.rolling_mean, static_cast<std::size_t>(l.n), "rolling mean");
        copy_in(conv.bn_variance, l.rolling_variance, static_cast<std::size_t>(l.n), "rolling variance");
    }
}

ConvParams DarknetTrainingOracle::conv_parameters(int i) const {
    const layer& l = impl_->at(i);
    ConvParams conv;
    conv.weights = copy_out(l.weights, static_cast<std::size_t>(l.nweights));
    conv.biases = copy_out(l.biases, static_cast<std::size_t>(l.n));
    if (l.batch_normalize) {
        conv.bn_scales = copy_out(l.scales, static_cast<std::size_t>(l.n));
        conv.bn_mean = copy_out(l.rolling_mean, static_cast<std::size_t>(l.n));
        conv.bn_variance = copy_out(l.rolling_variance, static_cast<std::size_t>(l.n));
    }
    return conv;
}

std::vector<float> DarknetTrainingOracle::weight_updates(int i) const {
    const layer& l = impl_->at(i);
    return copy_out(l.weight_updates, static_cast<std::size_t>(l.nweights));
}
std::vector<float> DarknetTrainingOracle::bias_updates(int i) const {
    const layer& l = impl_->at(i);
    return copy_out(l.bias_updates, static_cast<std::size_t>(l.n));
}
std::vector<float> DarknetTrainingOracle::scale_updates(int i) const {
    const layer& l = impl_->at(i);
    return l.batch_normalize ? copy_out(l.scale_updates, static_cast<std::size_t>(l.n))
                             : std::vector<float>();
}

void DarknetTrainingOracle::forward(const std::vector<float>& input, const std::vector<float>& truth,
                                    std::uint64_t seen) {
    network* net = impl_->net;
    copy_in(input, net->input, static_cast<std::size_t>(net->inputs) * net->batch, "input");
    if (!truth.empty())
        copy_in(truth, net->truth, static_cast<std::size_t>(net->truths) * net->batch, "truth");
    *net->seen = seen;
    net->train = 1;
    forward_network(net);
}

int DarknetTrainingOracle::truth_floats_per_image() const { return impl_->net->truths; }

float DarknetTrainingOracle::network_cost() const { return *impl_->net->cost; }

float DarknetTrainingOracle::layer_cost(int i) const {
    const layer& l = impl_->at(i);
    if (l.cost == nullptr)
        throw std::runtime_error("darknet oracle: layer " + std::to_string(i) + " has no cost");
    return *l.cost;
}

std::vector<float> DarknetTrainingOracle::output(int i) const {
    const layer& l = impl_->at(i);
    return copy_out(l.output, static_cast<std::size_t>(l.outputs) * l.batch);
}
std::vector<float> DarknetTrainingOracle::delta(int i) const {
    const layer& l = impl_->at(i);
    return copy_out(l.delta, static_cast<std::size_t>(l.outputs) * l.batch);
}
void DarknetTrainingOracle::set_delta(int i, const std::vector<float>& delta) {
    const layer& l = impl_->at(i);
    copy_in(delta, l.delta, static_cast<std::size_t>(l.outputs) * l.batch, "delta");
}

void DarknetTrainingOracle::backward(std::vector<float>& input_delta) {
    network* net = impl_->net;
    input_delta.assign(static_cast<std::size_t>(net->inputs) * net->batch, 0.0f);
    const network orig = *net;
    for (int i = net->n - 1; i >= 0; --i) {
        const layer l = net->layers[i];
        if (l.stopbackward != 0) break;
        network state = orig;
        if (i == 0) {
            state.delta = input_delta.data();
        } else {
            state.input = net->layers[i - 1].output;
            state.delta = net->layers[i - 1].delta;
        }
        state.index = i;
        if (l.type == REGION) {
            region_backward_gpu_way(l, state);
        } else {
            l.backward(l, state);
        }
    }
}

void DarknetTrainingOracle::darknet_layer_backward(int i) {
    const layer l = impl_->at(i);
    const layer previous = impl_->at(i - 1);
    network state = *impl_->net;
    state.input = previous.output;
    state.delta = previous.delta;
    state.index = i;
    l.backward(l, state);
}

void DarknetTrainingOracle::update() { update_network(impl_->net); }

float DarknetTrainingOracle::current_rate(std::uint64_t seen) {
    *impl_->net->seen = seen;
    return get_current_rate(impl_->net);
}

double max_relative_difference(const std::vector<float>& actual, const std::vector<float>& expected) {
    if (actual.size() != expected.size()) return INFINITY;
    double largest = 0;
    double difference = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        largest = std::max(largest, std::fabs(static_cast<double>(expected[i])));
        difference = std::max(difference, std::fabs(static_cast<double>(actual[i]) - expected[i]));
    }
    if (largest == 0) return difference == 0 ? 0 : INFINITY;
    return difference / largest;
}

}  // namespace fpgacnn::crosscheck

// Route unification. A route is realised by placement (producers write straight into their channel
// slice of the concatenated buffer), so all its inputs must be written at one exponent; maxpool and
// reorg, upsample only move values and the region and yolo layers read their input as is, so their outputs
// keep their input's exponent. Tensors tied this way form groups (union-find); each group takes the smallest
// exponent any member asks for, so no member saturates more than its own statistics allow.
#include <algorithm>
#include <limits>
#include <numeric>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

namespace {

class TensorGroups {
public:
    explicit TensorGroups(std::size_t tensors) : parent_(tensors) {
        std::iota(parent_.begin(), parent_.end(), 0);
    }
    std::size_t find(std::size_t t) {
        while (parent_[t] != t) t = parent_[t] = parent_[parent_[t]];
        return t;
    }
    void unite(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }

private:
    std::vector<std::size_t> parent_;
};

// Tensor 0 is the network input, tensor i + 1 the output of layer i.
std::vector<std::size_t> input_tensors(const Network& network, int layer_index) {
    const Layer& layer = network.layers[layer_index];
    if (layer.type != LayerType::Route) return {static_cast<std::size_t>(layer_index)};
    std::vector<std::size_t> inputs;
    for (int source : layer.route().inputs) {
        if (source < 0 || source >= layer_index) {
            throw Error(network.cfg_path + ": route layer " + std::to_string(layer_index) + " reads layer " +
                        std::to_string(source) + ", which does not precede it");
        }
        inputs.push_back(static_cast<std::size_t>(source) + 1);
    }
    return inputs;
}

}  // namespace

ActivationExponents unify_activation_exponents(const Network& network,
                                               const std::vector<int>& preferred_output_q, int input_q) {
    const std::size_t layers = network.layers.size();
    if (preferred_output_q.size() != layers) {
        throw Error("unify_activation_exponents: " + std::to_string(preferred_output_q.size()) +
                    " preferred exponents for " + std::to_string(layers) + " layers");
    }
    TensorGroups groups(layers + 1);
    std::vector<std::vector<std::size_t>> inputs(layers);
    for (std::size_t i = 0; i < layers; ++i) {
        inputs[i] = input_tensors(network, static_cast<int>(i));
        // A conv and a shortcut rescale what they read (the shortcut adds two tensors at their own
        // exponents); every other layer moves values and is tied to its input.
        const LayerType type = network.layers[i].type;
        if (type == LayerType::Convolutional || type == LayerType::Shortcut) continue;
        for (std::size_t source : inputs[i]) groups.unite(i + 1, source);
    }

    std::vector<int> group_q(layers + 1, std::numeric_limits<int>::max());
    group_q[groups.find(0)] = input_q;
    for (std::size_t i = 0; i < layers; ++i) {
        int& q = group_q[groups.find(i + 1)];
        q = std::min(q, preferred_output_q[i]);
    }

    ActivationExponents result;
    result.input_q = group_q[groups.find(0)];
    result.output_q.resize(layers);
    result.input_of.resize(layers);
    for (std::size_t i = 0; i < layers; ++i) {
        result.output_q[i] = group_q[groups.find(i + 1)];
        result.input_of[i] = group_q[groups.find(inputs[i].front())];
    }
    return result;
}

}  // namespace fpgacnn

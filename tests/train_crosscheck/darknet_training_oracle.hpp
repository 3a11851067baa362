// libdarknet's training step as the oracle of the float trainer: a darknet network built from cfg
// text, run with its exported forward_network, each layer's backward pointer (the [region] layer the
// GPU way, since the CPU backward_region_layer is empty) and update_network. darknet.h stays inside the
// .cpp (its global names image, box, layer, network would meet the tests' names).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::crosscheck {

class DarknetTrainingOracle {
public:
    /// parse_network_cfg on `cfg_text` (written to a temporary file), the batch as its [net] says.
    explicit DarknetTrainingOracle(const std::string& cfg_text);
    ~DarknetTrainingOracle();
    DarknetTrainingOracle(const DarknetTrainingOracle&) = delete;
    DarknetTrainingOracle& operator=(const DarknetTrainingOracle&) = delete;

    int batch() const;
    int layer_count() const;
    /// Copies weights, biases and (with batch-norm) scales and rolling mean/variance into layer i.
    void set_conv_parameters(int i, const ConvParams& conv);
    /// Layer i's parameters now (weights, biases, bn_scales, bn_mean = rolling mean, bn_variance).
    ConvParams conv_parameters(int i) const;
    std::vector<float> weight_updates(int i) const;
    std::vector<float> bias_updates(int i) const;
    std::vector<float> scale_updates(int i) const;  ///< empty without batch-norm

    /// Floats of one image's truth in net->truth (darknet: 30 boxes for [region], 90 for [yolo], 5 each).
    int truth_floats_per_image() const;
    /// forward_network with net->train = 1 and *net->seen = seen; truth as net->truth (may be empty).
    void forward(const std::vector<float>& input, const std::vector<float>& truth, std::uint64_t seen);
    /// *net->cost after forward(): calc_network_cost's mean over the loss layers.
    float network_cost() const;
    /// *l.cost of loss layer i.
    float layer_cost(int i) const;
    std::vector<float> output(int i) const;
    std::vector<float> delta(int i) const;
    void set_delta(int i, const std::vector<float>& delta);
    /// backward_network's loop; the network input's delta goes to `input_delta` (batch * inputs floats).
    void backward(std::vector<float>& input_delta);
    /// Layer i's own backward pointer (for the region layer: pjreddie's CPU backward_region_layer),
    /// with the previous layer's output and delta as backward_network passes them (i >= 1).
    void darknet_layer_backward(int i);
    /// update_network (the rate from get_current_rate at *net->seen).
    void update();
    /// get_current_rate at *net->seen = seen.
    float current_rate(std::uint64_t seen);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// max |actual - expected| / max |expected| (0 when both are all zeros).
double max_relative_difference(const std::vector<float>& actual, const std::vector<float>& expected);

}  // namespace fpgacnn::crosscheck

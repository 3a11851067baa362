// Small networks for the calibration tests: a hand-built one-conv network with chosen parameters,
// and a tiny YOLOv2-shaped cfg (conv, maxpool, route, reorg, region) with synthetic weights.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/vision.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

/// One [convolutional] layer over a c x h x w input, with the given parameters.
inline Network single_conv_network(TensorShape input, int filters, int size, Activation activation,
                                   std::vector<float> weights, std::vector<float> biases) {
    Network network;
    network.cfg_path = "<single conv>";
    network.input = input;
    Layer layer;
    layer.type = LayerType::Convolutional;
    layer.index = 0;
    layer.input = input;
    layer.output = {filters, input.h, input.w};
    ConvParams conv;
    conv.filters = filters;
    conv.size = size;
    conv.stride = 1;
    conv.pad = size / 2;
    conv.activation = activation;
    conv.weights = std::move(weights);
    conv.biases = std::move(biases);
    layer.params = conv;
    network.layers.push_back(layer);
    network.weights_loaded = true;
    return network;
}

inline Image constant_image(TensorShape shape, float value) {
    Image image;
    image.w = shape.w;
    image.h = shape.h;
    image.c = shape.c;
    image.data.assign(shape.size(), value);
    return image;
}

/// Mirrors YOLOv2's head at toy size: route 5 re-reads conv 2, reorg 6 feeds route 7 next to conv 4.
inline const char* tiny_yolo_cfg_text(int last_filters = 30) {
    static std::string text;
    text = R"([net]
width=32
height=32
channels=3

[convolutional]
batch_normalize=1
filters=8
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
filters=16
size=3
stride=1
pad=1
activation=leaky

[maxpool]
size=2
stride=2

[convolutional]
filters=32
size=3
stride=1
pad=1
activation=leaky

[route]
layers=-3

[reorg]
stride=2

[route]
layers=-1,-3

[convolutional]
filters=)" +
           std::to_string(last_filters) +
           R"(
size=1
stride=1
pad=1
activation=linear

[region]
anchors=1,1, 2,2
classes=10
coords=4
num=2
softmax=1
)";
    return text.c_str();
}

/// Writes the tiny cfg into `dir` and returns its path.
inline std::string write_tiny_cfg(const std::string& dir, const std::string& name = "tiny.cfg",
                                  int last_filters = 30) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << tiny_yolo_cfg_text(last_filters);
    return path;
}

/// The tiny cfg with deterministic synthetic weights, batch-norm folded.
inline Network tiny_network(const std::string& cfg_path, std::uint64_t seed = 7) {
    Network network = load_darknet_cfg(cfg_path);
    fill_synthetic_weights(network, seed);
    fold_batchnorm(network);
    return network;
}

inline std::vector<std::string> sample_images() {
    return {darknet_file("data/dog.jpg"), darknet_file("data/person.jpg")};
}

/// Every ISA path this CPU has (on 2 threads) gives `scalar`'s output on every layer for `input`.
inline void expect_every_isa_equals_scalar(const QuantizedNetwork& q, const std::vector<int16_t>& input,
                                           const Int16Engine& scalar) {
    for (const Int16Isa isa : supported_int16_isas()) {
        Int16Engine engine(q, isa, 2);
        engine.run(input.data());
        for (std::size_t i = 0; i < q.network.layers.size(); ++i) {
            ASSERT_EQ(engine.layer_output(static_cast<int>(i)), scalar.layer_output(static_cast<int>(i)))
                << isa_name(isa) << ", layer " << i;
        }
    }
}

}  // namespace fpgacnn::test

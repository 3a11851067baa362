// The parameter-free layers' backward passes are the transposes of their forwards (for maxpool: with
// the chosen taps fixed): <forward(x), d> = <x, backward(d)>, for route with groups (which
// pjreddie's darknet, the oracle of tests/train_crosscheck, does not have), reorg, upsample and a
// shortcut between layers of different shapes.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/float_ops.hpp"
#include "train/layer_backward.hpp"
#include "train_test_values.hpp"

namespace fpgacnn::train {
namespace {

Network network_of(const std::string& layers) {
    return parse_darknet_cfg("[net]\nwidth=8\nheight=6\nchannels=4\n" + layers, "adjoint.cfg");
}

constexpr int kBatch = 2;

TEST(LayerAdjoint, RouteWithGroups) {
    // layers 0 and 1: two 1x1 convs of 4 and 6 channels; route takes the second half of each.
    const Network net = network_of(
        "[convolutional]\nfilters=4\nsize=1\nactivation=linear\n[convolutional]\nfilters=6\nsize=1\n"
        "activation=linear\n[route]\nlayers=0,1\ngroups=2\ngroup_id=1\n");
    const Layer& route = net.layers.at(2);
    ASSERT_EQ(route.output.c, 5);
    const std::vector<float> a = random_values(net.layers[0].output.size() * kBatch, 1);
    const std::vector<float> b = random_values(net.layers[1].output.size() * kBatch, 2);
    std::vector<float> output(route.output.size() * kBatch);
    route_forward_batch(route, {&a, &b}, kBatch, output.data());
    const std::vector<float> d = random_values(output.size(), 3);
    std::vector<float> da(a.size(), 0.0f);
    std::vector<float> db(b.size(), 0.0f);
    route_backward(route, {&da, &db}, kBatch, d.data());
    EXPECT_NEAR(inner(output, d), inner(a, da) + inner(b, db), 1e-9);
    // The first half of each input's channels gets nothing back.
    EXPECT_EQ(da[0], 0.0f);
    EXPECT_NE(da[da.size() / kBatch - 1], 0.0f);
}

TEST(LayerAdjoint, Reorg) {
    const Network net = network_of("[reorg]\nstride=2\n");
    const Layer& layer = net.layers.at(0);
    const std::vector<float> x = random_values(layer.input.size() * kBatch, 4);
    std::vector<float> y(layer.output.size() * kBatch);
    for (int b = 0; b < kBatch; ++b)
        reorg_forward(layer, x.data() + b * layer.input.size(), y.data() + b * layer.output.size());
    const std::vector<float> d = random_values(y.size(), 5);
    std::vector<float> dx(x.size(), 0.0f);
    reorg_backward(layer, kBatch, d.data(), dx.data());
    EXPECT_NEAR(inner(y, d), inner(x, dx), 1e-9);
}

TEST(LayerAdjoint, Upsample) {
    const Network net = network_of("[upsample]\nstride=2\n");
    const Layer& layer = net.layers.at(0);
    const std::vector<float> x = random_values(layer.input.size() * kBatch, 6);
    std::vector<float> y(layer.output.size() * kBatch);
    for (int b = 0; b < kBatch; ++b) {
        upsample_forward(layer, x.data() + b * layer.input.size(), y.data() + b * layer.output.size());
    }
    const std::vector<float> d = random_values(y.size(), 7);
    std::vector<float> dx(x.size(), 0.0f);
    upsample_backward(layer, kBatch, d.data(), dx.data());
    EXPECT_NEAR(inner(y, d), inner(x, dx), 1e-6);
}

TEST(LayerAdjoint, ShortcutOfAnotherShape) {
    // layer 0: 8x6x4 (the added one), layer 1: 4x3x6 (the shortcut's own input).
    const Network net = network_of(
        "[convolutional]\nfilters=4\nsize=1\nactivation=linear\n[convolutional]\nfilters=6\nsize=1\nstride="
        "2\n"
        "activation=linear\n[shortcut]\nfrom=0\nactivation=linear\n");
    const Layer& layer = net.layers.at(2);
    const TensorShape from_shape = net.layers[0].output;
    const std::vector<float> x = random_values(layer.input.size() * kBatch, 8);
    const std::vector<float> added = random_values(from_shape.size() * kBatch, 9);
    std::vector<float> y(layer.output.size() * kBatch);
    for (int b = 0; b < kBatch; ++b) {
        shortcut_forward(layer, x.data() + b * layer.input.size(), added.data() + b * from_shape.size(),
                         from_shape, y.data() + b * layer.output.size());
    }
    std::vector<float> d = random_values(y.size(), 10);
    const double forward = inner(y, d);
    std::vector<float> dx(x.size(), 0.0f);
    std::vector<float> dadded(added.size(), 0.0f);
    shortcut_backward(layer, kBatch, y.data(), d.data(), dx.data(), dadded.data(), from_shape);
    EXPECT_NEAR(forward, inner(x, dx) + inner(added, dadded), 1e-6);  // y was rounded to float
}

TEST(LayerAdjoint, MaxpoolSendsEachDeltaToTheFirstMaximum) {
    const Network net = network_of("[maxpool]\nsize=3\nstride=2\n");
    const Layer& layer = net.layers.at(0);
    std::vector<float> x = random_values(layer.input.size() * kBatch, 11);
    x[0] = x[1] = 5.0f;  // a tie in the first window: darknet keeps the first tap
    std::vector<float> y(layer.output.size() * kBatch);
    std::vector<std::size_t> indexes;
    maxpool_forward_train(layer, kBatch, x.data(), y.data(), indexes);
    EXPECT_EQ(indexes[0], 0U);
    std::vector<float> inference(layer.output.size());
    maxpool_forward(layer, x.data(), inference.data());
    EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + static_cast<long>(inference.size())), inference);
    const std::vector<float> d = random_values(y.size(), 12);
    std::vector<float> dx(x.size(), 0.0f);
    maxpool_backward(indexes, d.data(), dx.data());
    EXPECT_NEAR(inner(y, d), inner(x, dx), 1e-9);
}

}  // namespace
}  // namespace fpgacnn::train

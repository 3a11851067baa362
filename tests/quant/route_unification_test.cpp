// Route inputs share one exponent (routes are realised by placement), maxpool / reorg / region
// keep their input's; checked on yolov2.cfg's real topology and on a calibrated toy YOLOv2.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "quant_test_support.hpp"

namespace fpgacnn {
namespace {

// A preference per layer that differs from its neighbours', so that any missed tie shows.
std::vector<int> scattered_preferences(const Network& network) {
    std::vector<int> preferred;
    for (std::size_t i = 0; i < network.layers.size(); ++i)
        preferred.push_back(5 + static_cast<int>((i * 7) % 11));
    return preferred;
}

int min_of(const std::vector<int>& values, std::initializer_list<int> indexes) {
    int m = arith::kMaxExponent;
    for (int i : indexes) m = std::min(m, values[i]);
    return m;
}

TEST(RouteUnification, Yolov2RoutesShareOneExponentWithAllTheirProducers) {
    const Network network =
        load_darknet_cfg(test::darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    ASSERT_EQ(network.layers[25].type, LayerType::Route);  // route -9: re-reads conv 16
    ASSERT_EQ(network.layers[27].type, LayerType::Reorg);
    ASSERT_EQ(network.layers[28].type, LayerType::Route);  // route -1,-4: reorg 27 and conv 24
    const std::vector<int> preferred = scattered_preferences(network);
    const ActivationExponents e = unify_activation_exponents(network, preferred, 14);

    // Route 25 copies conv 16, which maxpool 17 also reads: {16, 17, 25} form one group.
    const int q25 = min_of(preferred, {16, 17, 25});
    EXPECT_EQ(e.output_q[16], q25);
    EXPECT_EQ(e.output_q[17], q25);
    EXPECT_EQ(e.output_q[25], q25);
    EXPECT_EQ(e.input_of[26], q25);

    // Route 28 concatenates reorg 27 (of conv 26) and conv 24: {24, 26, 27, 28} share one exponent.
    const int q28 = min_of(preferred, {24, 26, 27, 28});
    for (int i : {24, 26, 27, 28}) EXPECT_EQ(e.output_q[i], q28) << "layer " << i;
    EXPECT_EQ(e.input_of[28], q28);
    EXPECT_EQ(e.input_of[29], q28);
    EXPECT_LT(q28, preferred[24]);  // the scattered preferences really forced a change

    // A conv layer outside any group keeps its own preference; the region keeps its input's.
    EXPECT_EQ(e.output_q[0], std::min(preferred[0], preferred[1]));  // conv 0 feeds maxpool 1
    EXPECT_EQ(e.output_q[29], preferred[29]);
    EXPECT_EQ(e.output_q[31], e.output_q[30]);
    EXPECT_EQ(e.input_q, 14);
}

TEST(RouteUnification, EveryLayerReadsItsProducersExponent) {
    const Network network =
        load_darknet_cfg(test::darknet_file("cfg/yolov2.cfg"), InputSizeOverride{416, 416});
    const ActivationExponents e = unify_activation_exponents(network, scattered_preferences(network), 14);
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        if (layer.type == LayerType::Route) {
            for (int source : layer.route().inputs)
                EXPECT_EQ(e.output_q[source], e.output_q[i]) << "route " << i;
            EXPECT_EQ(e.input_of[i], e.output_q[i]);
            continue;
        }
        EXPECT_EQ(e.input_of[i], i == 0 ? e.input_q : e.output_q[i - 1]) << "layer " << i;
        if (layer.type != LayerType::Convolutional) {
            EXPECT_EQ(e.output_q[i], e.input_of[i]) << "layer " << i;
        }
    }
}

TEST(RouteUnification, TheInputImageKeepsItsExponentUnlessAGroupNeedsLess) {
    const Network network = load_darknet_cfg(test::darknet_file("cfg/yolov2-tiny.cfg"));
    std::vector<int> preferred(network.layers.size(), 20);
    EXPECT_EQ(unify_activation_exponents(network, preferred, 14).input_q, 14);
    EXPECT_THROW(unify_activation_exponents(network, std::vector<int>(3, 1), 14), Error);
}

TEST(RouteUnification, ACalibratedToyYolov2SatisfiesTheEnginesExponentRules) {
    const std::string dir = test::scratch_dir("quant_route_toy");
    const Network network = test::tiny_network(test::write_tiny_cfg(dir));
    ASSERT_EQ(network.layers[5].type, LayerType::Route);
    ASSERT_EQ(network.layers[6].type, LayerType::Reorg);
    ASSERT_EQ(network.layers[7].type, LayerType::Route);
    const CalibrationResult result = calibrate(network, test::sample_images());
    const QuantizedNetwork& q = result.quantized;
    // conv 2 (re-read by route 5, reorg 6) and conv 4 (route 7) end up in one group.
    std::set<int> shared;
    for (int i : {2, 3, 4, 5, 6, 7}) shared.insert(q.layers[i].output_q);
    EXPECT_EQ(shared.size(), 1u);
    EXPECT_EQ(q.layers[8].input_q, q.layers[7].output_q);
    EXPECT_EQ(q.layers[9].input_q, q.layers[8].output_q);
    EXPECT_EQ(q.layers[9].output_q, q.layers[8].output_q);
    // The Int16Engine checks every exponent rule of the contract on construction.
    EXPECT_NO_THROW(Int16Engine(q, best_int16_isa(), 1));
    for (std::size_t i = 0; i < q.layers.size(); ++i) {
        if (network.layers[i].type != LayerType::Convolutional) continue;
        const QuantizedLayer& l = q.layers[i];
        EXPECT_GE(l.weight_q + l.input_q - l.bias_q, arith::kModelMinBiasShift);
        EXPECT_LE(l.weight_q + l.input_q - l.bias_q, arith::kModelMaxBiasShift);
        EXPECT_GE(l.weight_q + l.input_q - l.output_q, arith::kModelMinOutputShift);
        EXPECT_LE(l.weight_q + l.input_q - l.output_q, arith::kModelMaxOutputShift);
        EXPECT_LE(result.layers[i].accumulator_bits, 30.0) << "layer " << i;
    }
}

}  // namespace
}  // namespace fpgacnn

// Int16Engine on a tiny hand-built QuantizedNetwork (conv -> maxpool -> conv -> route -> reorg ->
// region), at 16 bits and with 8-bit layers: it equals chaining the scalar reference ops, every ISA
// path and thread count gives the same bits, and broken exponent rules are refused with the layer named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16_test_support.hpp"

namespace fpgacnn {
namespace {

using ::testing::HasSubstr;

Layer conv_layer(int index, TensorShape in, int filters, int size, int pad, Activation activation) {
    Layer layer;
    layer.type = LayerType::Convolutional;
    layer.index = index;
    layer.cfg_line = 10 * index + 1;
    ConvParams conv;
    conv.filters = filters;
    conv.size = size;
    conv.stride = 1;
    conv.pad = pad;
    conv.activation = activation;
    layer.params = conv;
    layer.input = in;
    layer.output = {filters, in.h + 2 * pad - size + 1, in.w + 2 * pad - size + 1};
    return layer;
}

QuantizedLayer quantized_conv(std::mt19937& rng, const Layer& layer, int in_q, int w_q, int b_q, int out_q) {
    QuantizedLayer q;
    q.input_q = in_q;
    q.output_q = out_q;
    q.weight_q = w_q;
    q.bias_q = b_q;
    const ConvParams& conv = layer.conv();
    q.weights = test::random_int16(
        rng, static_cast<std::size_t>(conv.filters) * layer.input.c * conv.size * conv.size, -4000, 4000);
    q.biases = test::random_int16(rng, static_cast<std::size_t>(conv.filters), -3000, 3000);
    return q;
}

QuantizedLayer passthrough(int q) {
    QuantizedLayer layer;
    layer.input_q = q;
    layer.output_q = q;
    return layer;
}

// 3x12x12 -> conv 3x3 8 leaky -> maxpool 2/2 -> conv 3x3 16 linear -> route [1, 2] -> reorg 2 ->
// region (2 anchors x (5 + 43 classes) = 96 channels).
QuantizedNetwork tiny_network() {
    std::mt19937 rng(99);
    QuantizedNetwork net;
    net.input_q = 14;
    net.network.input = {3, 12, 12};
    Layer l0 = conv_layer(0, {3, 12, 12}, 8, 3, 1, Activation::Leaky);
    Layer l1;
    l1.type = LayerType::MaxPool;
    l1.index = 1;
    l1.params = MaxPoolParams{2, 2, 1};
    l1.input = l0.output;
    l1.output = {8, 6, 6};
    Layer l2 = conv_layer(2, l1.output, 16, 3, 1, Activation::Linear);
    Layer l3;
    l3.type = LayerType::Route;
    l3.index = 3;
    l3.params = RouteParams{{1, 2}};
    l3.output = {24, 6, 6};
    l3.input = l3.output;
    Layer l4;
    l4.type = LayerType::Reorg;
    l4.index = 4;
    l4.params = ReorgParams{2};
    l4.input = l3.output;
    l4.output = {96, 3, 3};
    Layer l5;
    l5.type = LayerType::Region;
    l5.index = 5;
    RegionParams region;
    region.classes = 43;
    region.num = 2;
    region.anchors = {1, 1, 2, 2};
    l5.params = region;
    l5.input = l4.output;
    l5.output = l4.output;
    net.network.layers = {l0, l1, l2, l3, l4, l5};
    net.layers.push_back(quantized_conv(rng, l0, 14, 12, 12, 11));  // bias shift 14, output shift 15
    net.layers.push_back(passthrough(11));
    net.layers.push_back(quantized_conv(rng, l2, 11, 13, 13, 11));  // bias shift 11, output shift 13
    net.layers.push_back(passthrough(11));
    net.layers.push_back(passthrough(11));
    net.layers.push_back(passthrough(11));
    return net;
}

// tiny_network() with 8-bit layers: conv 0 reads the 16-bit image with 8-bit weights and writes 8-bit
// values, which maxpool, route, reorg and region carry; conv 2 is 8-bit throughout (the AVX-512 VNNI
// u8 x s8 path). Biases scaled to the 8-bit weights, so outputs both saturate and fall inside.
QuantizedNetwork tiny_network_8bit() {
    QuantizedNetwork net = tiny_network();
    std::mt19937 rng(16);
    const auto narrow_conv = [&](std::size_t i, int weight_q, int bias_range) {
        QuantizedLayer& q = net.layers[i];
        q.weight_bits = arith::kNarrowBits;
        q.weight_q = weight_q;
        q.bias_q = weight_q;
        q.weights = test::random_int16(rng, q.weights.size(), -128, 127);
        q.biases = test::random_int16(rng, q.biases.size(), -bias_range, bias_range);
    };
    narrow_conv(0, 12, 100);  // bias shift 14, output shift 15 (as at 16 bits)
    narrow_conv(2, 9, 60);    // bias shift 11, output shift 9
    for (QuantizedLayer& q : net.layers) q.output_bits = arith::kNarrowBits;
    return net;
}

std::vector<int16_t> tiny_input() {
    std::mt19937 rng(5);
    return test::random_int16(rng, 3 * 12 * 12, 0, 16384);  // an image in [0, 1] at Q14
}

std::vector<int16_t> run_reference_conv(const QuantizedNetwork& net, int i, const std::vector<int16_t>& in) {
    const Layer& layer = net.network.layers[static_cast<std::size_t>(i)];
    const QuantizedLayer& q = net.layers[static_cast<std::size_t>(i)];
    std::vector<int16_t> out(layer.output.size());
    int16_conv_reference(int16_conv_args(layer, q), q.weights.data(), q.biases.data(), in.data(), out.data());
    return out;
}

// The outputs of layers 0 to 4 of a tiny_network(), chaining the scalar reference ops.
std::vector<std::vector<int16_t>> reference_outputs(const QuantizedNetwork& net,
                                                    const std::vector<int16_t>& input) {
    const auto& layers = net.network.layers;
    const auto out0 = run_reference_conv(net, 0, input);
    const auto out1 = test::naive_maxpool(layers[1], out0);
    const auto out2 = run_reference_conv(net, 2, out1);
    std::vector<int16_t> out3 = out1;
    out3.insert(out3.end(), out2.begin(), out2.end());
    const auto out4 = test::naive_reorg(layers[4], out3);
    return {out0, out1, out2, out3, out4};
}

TEST(Int16Engine, EqualsChainingTheScalarReferenceOps) {
    const QuantizedNetwork net = tiny_network();
    const std::vector<int16_t> input = tiny_input();
    const auto expected = reference_outputs(net, input);
    Int16Engine engine(net, Int16Isa::Scalar, 1);
    const std::vector<int16_t>& result = engine.run(input.data());
    for (int i = 0; i < 5; ++i) EXPECT_EQ(engine.layer_output(i), expected[i]) << "layer " << i;
    EXPECT_EQ(result, expected[4]);  // the region layer hands its int16 input to the host unchanged
    // Not a degenerate test: the leaky conv produced negatives and positives, nothing all zero.
    int negatives = 0, positives = 0;
    for (int16_t v : expected[0]) (v < 0 ? negatives : positives) += v != 0;
    EXPECT_GT(negatives, 10);
    EXPECT_GT(positives, 10);
}

TEST(Int16Engine, EightBitLayersGiveTheReferenceOutputsOnEveryIsa) {
    const QuantizedNetwork net = tiny_network_8bit();
    const std::vector<int16_t> input = tiny_input();
    const auto expected = reference_outputs(net, input);
    for (Int16Isa isa : supported_int16_isas()) {
        for (int threads : {1, 0}) {
            Int16Engine engine(net, isa, threads);
            engine.run(input.data());
            for (int i = 0; i < 5; ++i) {
                EXPECT_EQ(engine.layer_output(i), expected[i])
                    << isa_name(isa) << " threads " << threads << " layer " << i;
            }
        }
    }
    // Not degenerate: the 8-bit conv's outputs both saturate and fall inside the range.
    int saturated = 0, inside = 0;
    for (int16_t v : expected[2]) (v == -128 || v == 127 ? saturated : inside) += 1;
    EXPECT_GT(saturated, 10);
    EXPECT_GT(inside, 100);
}

TEST(Int16Engine, PassesEachConvItsInputWidth) {
    if (!int16_isa_supported(Int16Isa::Avx512Vnni)) GTEST_SKIP() << "this CPU has no AVX-512 VNNI";
    // The VNNI path packs a conv's weights as bytes only when it reads 8-bit values: conv 0 reads the
    // 16-bit image (int16 pairs although its weights are 8-bit), conv 2 an 8-bit maxpool output.
    const QuantizedNetwork net = tiny_network_8bit();
    const auto packed_bytes = [&net](std::size_t i, int input_bits) {
        const Layer& layer = net.network.layers[i];
        const QuantizedLayer& q = net.layers[i];
        return Int16PackedConv(int16_conv_args(layer, q, input_bits), q.weights.data(), q.biases.data(),
                               Int16Isa::Avx512Vnni)
            .packed_parameter_bytes();
    };
    EXPECT_LT(packed_bytes(2, arith::kNarrowBits), packed_bytes(2, arith::kDataBits));
    const Int16Engine engine(net, Int16Isa::Avx512Vnni, 1);
    EXPECT_EQ(engine.packed_parameter_bytes(),
              packed_bytes(0, arith::kDataBits) + packed_bytes(2, arith::kNarrowBits));
}

TEST(Int16Engine, EveryIsaAndThreadCountGivesIdenticalOutputs) {
    const QuantizedNetwork net = tiny_network();
    const std::vector<int16_t> input = tiny_input();
    Int16Engine scalar(net, Int16Isa::Scalar, 1);
    const std::vector<int16_t> expected = scalar.run(input.data());
    for (Int16Isa isa : supported_int16_isas()) {
        for (int threads : {1, 2, 0}) {
            Int16Engine engine(net, isa, threads);
            EXPECT_EQ(engine.isa(), isa);
            EXPECT_EQ(engine.run(input.data()), expected) << isa_name(isa) << " threads " << threads;
            EXPECT_EQ(engine.run(input.data()), expected) << isa_name(isa) << " second run";
        }
    }
}

TEST(Int16Engine, RefusesARouteWhoseInputsHaveDifferentExponents) {
    QuantizedNetwork net = tiny_network();
    net.layers[2].output_q = 10;  // conv output now at Q10, the maxpool's at Q11
    net.layers[3].input_q = 10;
    try {
        Int16Engine engine(net);
        FAIL() << "expected fpgacnn::Error";
    } catch (const Error& e) {
        EXPECT_THAT(e.what(), HasSubstr("layer 3 (route"));
        EXPECT_THAT(e.what(), HasSubstr("input layer 2"));
    }
}

TEST(Int16Engine, RefusesBrokenExponentRulesNamingTheLayer) {
    {
        QuantizedNetwork net = tiny_network();
        net.layers[1].output_q = 12;  // maxpool must keep its exponent
        net.layers[2].input_q = 12;
        EXPECT_THROW(
            {
                try {
                    Int16Engine engine(net);
                } catch (const Error& e) {
                    EXPECT_THAT(e.what(), HasSubstr("layer 1 (maxpool"));
                    throw;
                }
            },
            Error);
    }
    {
        QuantizedNetwork net = tiny_network();
        net.layers[0].bias_q = 10;  // bias shift 12 + 14 - 10 = 16 > 15
        try {
            Int16Engine engine(net);
            FAIL() << "expected fpgacnn::Error";
        } catch (const Error& e) {
            EXPECT_THAT(e.what(), HasSubstr("layer 0 (convolutional, cfg line 1)"));
            EXPECT_THAT(e.what(), HasSubstr("bias shift"));
        }
    }
    {
        QuantizedNetwork net = tiny_network();
        net.layers[0].output_q = -6;  // output shift 14 + 12 + 6 = 32 > 31 (checked before layer 1's input)
        try {
            Int16Engine engine(net);
            FAIL() << "expected fpgacnn::Error";
        } catch (const Error& e) {
            EXPECT_THAT(e.what(), HasSubstr("layer 0 (convolutional"));
            EXPECT_THAT(e.what(), HasSubstr("output shift"));
        }
    }
    {
        QuantizedNetwork net = tiny_network();
        net.layers[2].input_q = 12;  // does not match the maxpool output it reads
        try {
            Int16Engine engine(net);
            FAIL() << "expected fpgacnn::Error";
        } catch (const Error& e) {
            EXPECT_THAT(e.what(), HasSubstr("layer 2 (convolutional"));
        }
    }
    {
        QuantizedNetwork net = tiny_network();
        net.layers[0].weights.pop_back();
        EXPECT_THROW(Int16Engine engine(net), Error);
    }
}

TEST(Int16Engine, LayerOutputOutOfRangeThrows) {
    Int16Engine engine(tiny_network());
    EXPECT_THROW(engine.layer_output(6), Error);
    EXPECT_THROW(engine.layer_output(-1), Error);
}

}  // namespace
}  // namespace fpgacnn

// YOLOv3-tiny (Debian's cfg, synthetic weights) in fixed point: calibration over darknet's sample images,
// the int16 and int8 CPU engines on every ISA this machine has (bit-exact with the scalar path, layer
// by layer), the yolo heads against the float path, and the [shortcut] arithmetic on hand-checked values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>

#include "../../runtime/src/pipeline/int16_backend.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_engine.hpp"
#include "fpgacnn/float_ops.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/vision.hpp"
#include "quant_test_support.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {
namespace {

Image sample(const Network& network, const std::string& name) {
    return letterbox_image(load_image(darknet_file("data/" + name)), network.input.w, network.input.h);
}

struct YoloV3TinyFixture {
    Network network;
    std::vector<Image> images;
    explicit YoloV3TinyFixture(int size) {
        network = load_darknet_cfg(darknet_file("cfg/yolov3-tiny.cfg"), InputSizeOverride{size, size});
        fill_synthetic_weights(network, 20180914);
        fold_batchnorm(network);
        for (const char* name : {"dog.jpg", "person.jpg", "eagle.jpg"})
            images.push_back(sample(network, name));
    }
};

// 416 for the accuracy against float; the bit-exactness of every layer on every ISA holds at any size,
// and 128 keeps it cheap under the sanitizers (this is the fast label).
const YoloV3TinyFixture& yolov3_tiny(int size = 416) {
    static const YoloV3TinyFixture full(416);
    static const YoloV3TinyFixture small(128);
    return size == 416 ? full : small;
}

std::shared_ptr<const QuantizedNetwork> quantized_at(int conv_bits, int size = 416) {
    CalibrationOptions options;
    const YoloV3TinyFixture& model = yolov3_tiny(size);
    if (conv_bits != 16) options.widths = uniform_conv_widths(model.network, conv_bits);
    const std::vector<Image> calibration(model.images.begin(), model.images.begin() + 2);
    return std::make_shared<const QuantizedNetwork>(
        calibrate_letterboxed(model.network, calibration, options).quantized);
}

class YoloV3TinyFixedPoint : public testing::TestWithParam<int> {};

TEST_P(YoloV3TinyFixedPoint, EveryIsaIsBitExactWithScalarOnEveryLayer) {
    const auto quantized = quantized_at(GetParam(), 128);
    const Image& image = yolov3_tiny(128).images[2];
    std::vector<int16_t> input(image.data.size());
    quantize_tensor(image.data.data(), input.size(), quantized->input_q, input.data());
    Int16Engine scalar(*quantized, Int16Isa::Scalar, 1);
    scalar.run(input.data());
    for (const Int16Isa isa : supported_int16_isas()) {
        Int16Engine engine(*quantized, isa, 2);
        engine.run(input.data());
        for (std::size_t i = 0; i < quantized->network.layers.size(); ++i) {
            ASSERT_EQ(engine.layer_output(static_cast<int>(i)), scalar.layer_output(static_cast<int>(i)))
                << isa_name(isa) << ", layer " << i << " ("
                << layer_type_name(quantized->network.layers[i].type) << ")";
        }
    }
}

TEST_P(YoloV3TinyFixedPoint, YoloHeadsFollowTheFloatPath) {
    const auto quantized = quantized_at(GetParam());
    FloatEngine reference(yolov3_tiny().network);
    Int16Backend backend(quantized, best_int16_isa(), 2, /*keep_layer_outputs=*/false);
    const Network& network = yolov3_tiny().network;
    double worst = 0;
    std::size_t float_boxes = 0;
    std::size_t kept = 0;
    for (const Image& image : yolov3_tiny().images) {
        reference.run(image.data.data());
        const std::vector<float>& ours = backend.run(image.data.data());
        std::vector<float> theirs;
        for (const int head : network.output_layer_indices()) {
            const std::vector<float>& out = reference.layer_output(head);
            theirs.insert(theirs.end(), out.begin(), out.end());
        }
        ASSERT_EQ(ours.size(), theirs.size());
        for (std::size_t i = 0; i < ours.size(); ++i) {
            worst = std::max(worst, static_cast<double>(std::fabs(ours[i] - theirs[i])));
        }
        // Detections: a float box (prob > 0.7 after NMS) is kept when int16 has the same class with IoU >
        // 0.5.
        auto decode = [&](const std::vector<float>& output) {
            std::vector<RegionBox> boxes = decode_network_output(network, output, 768, 576, 0.7f);
            nms_sort(boxes, network.output_classes(), 0.45f);
            return collect_detections(boxes, 0.7f, 768, 576, {});
        };
        const std::vector<Detection> expected = decode(theirs);
        const std::vector<Detection> got = decode(ours);
        float_boxes += expected.size();
        for (const Detection& e : expected) {
            kept += std::any_of(got.begin(), got.end(), [&](const Detection& g) {
                return g.class_id == e.class_id && box_iou(g.box, e.box) > 0.5f;
            });
        }
    }
    const double kept_share = float_boxes == 0 ? 1.0 : static_cast<double>(kept) / float_boxes;
    std::cout << "[ measured ] yolov3-tiny " << GetParam()
              << "-bit conv layers: yolo heads max |diff| vs float " << worst << ", float detections kept "
              << kept << " / " << float_boxes << "\n";
    EXPECT_GT(float_boxes, 0u);
    // The heads' w/h entries are raw (unbounded) values; 8-bit convs lose more there.
    EXPECT_LT(worst, GetParam() == 16 ? 0.05 : 1.0);
    EXPECT_GE(kept_share, GetParam() == 16 ? 0.95 : 0.8);
}

// The backend converts the input and activates the yolo heads on its thread pool, in ranges (at 416
// the input and the 13x13 head are split in several); the result is the serial steps' to the bit.
TEST_P(YoloV3TinyFixedPoint, HostStepsOnThePoolEqualTheSerialSteps) {
    const auto quantized = quantized_at(GetParam());
    const Image& image = yolov3_tiny().images[0];
    Int16Backend backend(quantized, best_int16_isa(), 2, /*keep_layer_outputs=*/false);
    const std::vector<float> ours = backend.run(image.data.data());
    std::vector<int16_t> input(image.data.size());
    quantize_tensor(image.data.data(), input.size(), quantized->input_q, input.data());
    Int16Engine engine(*quantized, best_int16_isa(), 1, /*keep_layer_outputs=*/false);
    engine.run(input.data());
    std::vector<float> serial;
    for (const int head : quantized->network.output_layer_indices()) {
        const Layer& layer = quantized->network.layers[static_cast<std::size_t>(head)];
        // The engine's buffer may be larger (buffers are reused): the head's values are its first.
        std::vector<float> values(layer.output.size());
        dequantize_tensor(engine.layer_output(head).data(), values.size(),
                          quantized->layers[static_cast<std::size_t>(head)].output_q, values.data());
        output_layer_activate(layer, values.data());
        serial.insert(serial.end(), values.begin(), values.end());
    }
    ASSERT_EQ(ours.size(), serial.size());
    EXPECT_EQ(ours, serial);
}

INSTANTIATE_TEST_SUITE_P(Widths, YoloV3TinyFixedPoint, testing::Values(16, 8),
                         [](const testing::TestParamInfo<int>& param_info) {
                             return param_info.param == 16 ? "int16" : "int8";
                         });

TEST(Int16Shortcut, AlignsAddsRoundsOnceAndSaturates) {
    Layer layer;
    layer.type = LayerType::Shortcut;
    layer.index = 2;
    layer.input = layer.output = {1, 1, 4};
    layer.params = ShortcutParams{0, Activation::Linear};
    // input at Q4, added at Q2, output at Q3: sum at Q4 = a + 4b, then round(sum / 2), ties up.
    const std::vector<int16_t> input = {1, -3, 32000, 5};
    const std::vector<int16_t> added = {1, 0, 32000, -2};
    std::vector<int16_t> output(4);
    int16_shortcut(layer, {4, 2, 3, 16}, input.data(), added.data(), {1, 1, 4}, output.data());
    EXPECT_EQ(output,
              (std::vector<int16_t>{3, -1, 32767, -1}));  // 5/2 -> 3, -3/2 -> -1, saturated, -3/2 -> -1
    // 8-bit output saturates at 127; leaky folds 13107 / 2^17 into the same rounding.
    int16_shortcut(layer, {4, 2, 3, 8}, input.data(), added.data(), {1, 1, 4}, output.data());
    EXPECT_EQ(output[2], 127);
    layer.params = ShortcutParams{0, Activation::Leaky};
    int16_shortcut(layer, {4, 2, 0, 16}, input.data(), added.data(), {1, 1, 4}, output.data());
    // -3 at Q4: round(-3 * 13107 / 2^(17 + 4)) = round(-0.0187) = 0; 5 - 8 = -3 likewise.
    EXPECT_EQ(output[1], 0);
    layer.params = ShortcutParams{0, Activation::Logistic};
    EXPECT_THROW(int16_shortcut(layer, {4, 2, 3, 16}, input.data(), added.data(), {1, 1, 4}, output.data()),
                 Error);
}

TEST(Int16Upsample, CopiesEachValueIntoItsBlock) {
    Layer layer;
    layer.type = LayerType::Upsample;
    layer.input = {1, 1, 2};
    layer.output = {1, 2, 4};
    layer.params = UpsampleParams{2};
    const std::vector<int16_t> input = {-7, 9};
    std::vector<int16_t> output(8);
    int16_upsample(layer, input.data(), output.data());
    EXPECT_EQ(output, (std::vector<int16_t>{-7, -7, 9, 9, -7, -7, 9, 9}));
}

TEST(FixedPointActivations, RefusesActivationsItDoesNotImplement) {
    Network network = load_darknet_cfg(darknet_file("cfg/yolov3-tiny.cfg"), InputSizeOverride{64, 64});
    std::get<ConvParams>(network.layers[0].params).activation = Activation::Mish;
    fill_synthetic_weights(network, 1);
    fold_batchnorm(network);
    const Image image = constant_image(network.input, 0.5f);
    try {
        calibrate_letterboxed(network, {image}, {});
        FAIL() << "mish was calibrated";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "layer 0 (convolutional) has activation=mish, which the fixed-point paths"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("run this network with --precision float"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace fpgacnn::test

namespace fpgacnn::test {
namespace {

TEST(Int16Shortcut, OutputExponentStaysWithinEightOfItsOperands) {
    const std::string cfg =
        "[net]\nwidth=32\nheight=32\nchannels=3\n\n"
        "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n"
        "[convolutional]\nfilters=8\nsize=3\npad=1\nactivation=leaky\n\n"
        "[shortcut]\nfrom=-2\n\n"
        "[convolutional]\nfilters=6\nsize=1\nactivation=linear\n\n"
        "[yolo]\nmask=0\nanchors=4,4\nnum=1\nclasses=1\n";
    Network network = parse_darknet_cfg(cfg, "shortcut.cfg");
    fill_synthetic_weights(network, 3);
    fold_batchnorm(network);
    // Large activations give the operands low exponents, so one 9 above them is still a valid exponent
    // and only the shortcut's own rule can refuse it (checked before the next layer's).
    for (const int i : {0, 1}) {
        for (float& w : std::get<ConvParams>(network.layers[static_cast<std::size_t>(i)].params).weights)
            w *= 64;
    }
    QuantizedNetwork q = calibrate_letterboxed(network, {constant_image(network.input, 0.5f)}, {}).quantized;
    const int sum_q = std::max(q.layers[1].output_q, q.layers[0].output_q);
    EXPECT_LE(q.layers[2].output_q, sum_q + kShortcutMaxOutputGain);
    q.layers[2].output_q = sum_q + kShortcutMaxOutputGain + 1;
    q.layers[3].input_q = q.layers[2].output_q;
    try {
        validate_quantized_network(q, "shortcut.cfg");
        FAIL() << "a shortcut 9 above its operands was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("more than 8 above its operands' finer exponent"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace fpgacnn::test

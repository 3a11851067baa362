// The study widths of fpgacnn-quantize --explore (6 and 4 bits, arith::is_study_width): calibration
// narrows a conv layer's weights and output to a b-bit integer held in the 8-bit storage, the CPU
// backend runs it saturating at b bits on every path, and neither the model file writer nor a device
// accepts it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../../runtime/src/pipeline/int16_backend.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "quant_test_support.hpp"

namespace fpgacnn {
namespace {

// Conv layer 0 of the tiny network (read by maxpool 1, then conv 2) at `bits`, the rest at 16.
CalibrationResult layer0_at(const Network& network, int bits) {
    CalibrationOptions options;
    options.widths = uniform_conv_widths(network, arith::kDataBits);
    options.widths[0] = {bits, bits};
    return calibrate(network, test::sample_images(), options);
}

std::string message_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

class StudyWidth : public ::testing::TestWithParam<int> {};

TEST_P(StudyWidth, CalibratesAndRunsSaturatingAtItsBitsOnEveryCpuPath) {
    const int bits = GetParam();
    const int high = (1 << (bits - 1)) - 1;
    const Network network = test::tiny_network(test::write_tiny_cfg(test::scratch_dir("study_widths")));
    const CalibrationResult study = layer0_at(network, bits);
    const QuantizedLayer& conv = study.quantized.layers[0];
    ASSERT_EQ(conv.weight_bits, bits);
    ASSERT_EQ(conv.output_bits, bits);
    EXPECT_EQ(study.quantized.layers[1].output_bits, bits);  // the maxpool carries it to conv 2
    int largest_weight = 0;
    for (const int16_t w : conv.weights) {
        ASSERT_GE(w, -high - 1);
        ASSERT_LE(w, high);
        largest_weight = std::max(largest_weight, std::abs(static_cast<int>(w)));
    }
    EXPECT_GE(largest_weight, high) << "the weight exponent uses the b-bit range";
    // The output exponent (least squared error at b bits) is never coarser than the one that holds the
    // largest calibration value in b bits: the 16-bit one plus its margin bit, minus (16 - b).
    const CalibrationResult wide = calibrate(network, test::sample_images(), CalibrationOptions{});
    EXPECT_GE(conv.output_q, wide.quantized.layers[0].output_q + 1 - (arith::kDataBits - bits));

    const auto quantized = std::make_shared<const QuantizedNetwork>(study.quantized);
    // Twice as bright as any calibration image (Q14 holds up to 2): layer 0's outputs outgrow the range
    // calibration chose, so the b-bit clamp is certainly at work.
    Image boxed = letterbox_image(load_image(test::darknet_file("data/dog.jpg")), 32, 32);
    for (float& v : boxed.data) v *= 1.99f;
    std::vector<float> first_region;
    for (const Int16Isa isa : supported_int16_isas()) {
        Int16Backend backend(quantized, isa, 1, /*keep_layer_outputs=*/true);
        const std::vector<float> region = backend.run(boxed.data.data());
        if (first_region.empty()) first_region = region;
        EXPECT_EQ(region, first_region) << isa_name(isa);
        int top = -high - 1;
        for (const float value : backend.layer_output(0)) {
            const double stored = std::ldexp(static_cast<double>(value), conv.output_q);
            ASSERT_GE(stored, -high - 1) << isa_name(isa);
            ASSERT_LE(stored, high) << isa_name(isa);
            top = std::max(top, static_cast<int>(stored));
        }
        // Values saturate at these options: with the 8-bit clamp they would reach past `high`.
        EXPECT_EQ(top, high) << isa_name(isa);
    }
}

TEST_P(StudyWidth, TheModelFileWriterRefusesIt) {
    const std::string dir = test::scratch_dir("study_widths_file");
    const Network network = test::tiny_network(test::write_tiny_cfg(dir));
    const CalibrationResult study = layer0_at(network, GetParam());
    const std::string path = dir + "/study.fq16";
    const std::string error = message_of([&] { save_quantized_network(study.quantized, path); });
    EXPECT_NE(error.find("is a study width (fpgacnn-quantize --explore) that only the CPU backend runs"),
              std::string::npos)
        << error;
    EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_P(StudyWidth, TheEmuDeviceRefusesIt) {
    const Network network = test::tiny_network(test::write_tiny_cfg(test::scratch_dir("study_widths_emu")));
    BackendOptions options;
    options.device = "emu";
    options.precision = Precision::Mixed;
    options.quantized = std::make_shared<const QuantizedNetwork>(layer0_at(network, GetParam()).quantized);
    const std::string error = message_of([&] { make_backend(network, options); });
    EXPECT_NE(error.find("output width " + std::to_string(GetParam()) + " bits is a study width"),
              std::string::npos)
        << error;
    // Not even with the CPU fallback: the model is refused, not the device.
    options.cpu_fallback = true;
    EXPECT_THROW(make_backend(network, options), Error);
}

INSTANTIATE_TEST_SUITE_P(SixAndFourBits, StudyWidth,
                         ::testing::Values(arith::kStudyWidths[0], arith::kStudyWidths[1]));

}  // namespace
}  // namespace fpgacnn

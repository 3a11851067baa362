// Running int16 from the cfg and the quantized model file alone (issue 12, memory fit): parameters
// left in the file (ParameterLoading::OnDemand) give the same bits on the CPU int16 backend and the
// emu device as parameters in memory; given float weights are still checked against the file; a file
// replaced after loading is refused; the tools run without --weights when --quantized is given.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "error_message.hpp"
#include "fpgacnn/calibration.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "fpgacnn/vision.hpp"
#include "quant_test_support.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;

namespace fpgacnn {
namespace {

constexpr const char* kModel = "yolo-lite-voc";
constexpr const char* kCfg = "tiny-yolov2-trial3-noBatch.cfg";
constexpr const char* kWeights = "tiny-yolov2-trial3-noBatch.weights";

class ParametersOnDemand : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (test::shared_dir().empty()) return;
        const Network network = load_darknet_model(cfg(), weights());
        model_path_ = new std::string(test::scratch_dir("parameters_on_demand") + "/yolo-lite.fq16");
        save_quantized_network(calibrate(network, {test::darknet_file("data/dog.jpg")}).quantized,
                               *model_path_);
    }
    static void TearDownTestSuite() {
        delete model_path_;
        model_path_ = nullptr;
    }
    void SetUp() override { FPGACNN_REQUIRE_SHARED_MODELS(); }

    static std::string cfg() { return test::shared_model_file(kModel, kCfg); }
    static std::string weights() { return test::shared_model_file(kModel, kWeights); }
    static const std::string& model() { return *model_path_; }

    static std::vector<float> network_input(const Network& network) {
        return letterbox_image(load_image(test::darknet_file("data/dog.jpg")), network.input.w,
                               network.input.h)
            .data;
    }

    static std::string* model_path_;
};

std::string* ParametersOnDemand::model_path_ = nullptr;

TEST_F(ParametersOnDemand, SameBitsAsParametersInMemoryOnCpuAndEmu) {
    auto in_memory =
        std::make_shared<const QuantizedNetwork>(load_quantized_network(model(), load_darknet_cfg(cfg())));
    auto on_demand = std::make_shared<const QuantizedNetwork>(
        load_quantized_network(model(), load_darknet_cfg(cfg()), nullptr, ParameterLoading::OnDemand));
    ASSERT_TRUE(on_demand->parameter_source);
    std::size_t convs = 0;
    for (std::size_t i = 0; i < on_demand->layers.size(); ++i) {
        EXPECT_TRUE(on_demand->layers[i].weights.empty()) << "layer " << i << " holds its weights";
        EXPECT_EQ(quantized_weight_count(*on_demand, i), in_memory->layers[i].weights.size())
            << "layer " << i;
        if (!in_memory->layers[i].weights.empty()) {
            ++convs;
            EXPECT_EQ(ResidentLayer(*on_demand, i).get().weights, in_memory->layers[i].weights);
        }
    }
    EXPECT_GT(convs, 0u);

    const Network& network = in_memory->network;
    const std::vector<float> input = network_input(network);
    for (const char* device : {"cpu", "emu"}) {
        BackendOptions options;
        options.device = device;
        options.precision = Precision::Int16;
        options.quantized = in_memory;
        const std::vector<float> expected = make_backend(network, options)->run(input.data());
        options.quantized = on_demand;
        EXPECT_EQ(make_backend(network, options)->run(input.data()), expected) << device;
    }
}

TEST_F(ParametersOnDemand, GivenWeightsAreStillCheckedAgainstTheFile) {
    Network other = load_darknet_cfg(cfg());
    fill_synthetic_weights(other, 7);
    fold_batchnorm(other);
    const std::string message = test::error_message(
        [&] { load_quantized_network(model(), other, nullptr, ParameterLoading::OnDemand); });
    EXPECT_NE(message.find("quantized from other weights"), std::string::npos) << message;
    EXPECT_NO_THROW(load_quantized_network(model(), load_darknet_model(cfg(), weights()), nullptr,
                                           ParameterLoading::OnDemand));
}

TEST_F(ParametersOnDemand, AFileReplacedAfterLoadingIsRefused) {
    const std::string copy = test::scratch_dir("parameters_on_demand_replaced") + "/model.fq16";
    fs::copy_file(model(), copy);
    auto quantized = std::make_shared<const QuantizedNetwork>(
        load_quantized_network(copy, load_darknet_cfg(cfg()), nullptr, ParameterLoading::OnDemand));
    // Another model of the same network and size: only its parameters differ.
    Network other = load_darknet_cfg(cfg());
    fill_synthetic_weights(other, 7);
    fold_batchnorm(other);
    save_quantized_network(calibrate(other, {test::darknet_file("data/dog.jpg")}).quantized, copy);
    BackendOptions options;
    options.device = "cpu";
    options.precision = Precision::Int16;
    options.quantized = quantized;
    const std::string message = test::error_message([&] { make_backend(quantized->network, options); });
    EXPECT_NE(message.find("differ from the ones checked"), std::string::npos) << message;
}

TEST_F(ParametersOnDemand, DetectorRunsWithoutFloatWeightsOnlyForInt16) {
    Network network = load_darknet_cfg(cfg());
    DetectorOptions options;
    options.backend.device = "cpu";
    options.backend.precision = Precision::Int16;
    const std::string message = test::error_message([&] { Detector(network, {}, options); });
    EXPECT_NE(message.find("no weights loaded"), std::string::npos) << message;
    options.backend.quantized = std::make_shared<const QuantizedNetwork>(
        load_quantized_network(model(), network, nullptr, ParameterLoading::OnDemand));
    Detector detector(network, {}, options);
    EXPECT_NO_THROW(detector.detect(load_image(test::darknet_file("data/dog.jpg"))));
}

TEST_F(ParametersOnDemand, DetectRunsFromTheQuantizedFileAloneAndSaysWhatToPassWithoutIt) {
    const std::string detect = test::app_path("detect", "fpgacnn-detect");
    const std::string image = test::darknet_file("data/dog.jpg");
    std::string with_weights;
    std::string without_weights;
    std::string err;
    ASSERT_EQ(test::run_command(detect + " -q --device cpu --precision int16 --cfg " + cfg() + " --weights " +
                                    weights() + " --quantized " + model() + " " + image,
                                &with_weights, &err),
              0)
        << err;
    ASSERT_EQ(test::run_command(
                  detect + " -q --device emu --cfg " + cfg() + " --quantized " + model() + " " + image,
                  &without_weights, &err),
              0)
        << err;
    // The detections (everything but the time) are the same.
    const auto detections = [](const std::string& out) { return out.substr(out.find('\n') + 1); };
    EXPECT_EQ(detections(without_weights), detections(with_weights));
    EXPECT_NE(detections(with_weights).find('%'), std::string::npos) << with_weights;

    std::string out;
    EXPECT_EQ(test::run_command(detect + " --device cpu --cfg " + cfg() + " " + image, &out, &err), 2);
    EXPECT_NE(err.find("--weights FILE"), std::string::npos) << err;
    EXPECT_NE(err.find("--quantized FILE"), std::string::npos) << err;
}

}  // namespace
}  // namespace fpgacnn

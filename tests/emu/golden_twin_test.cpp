// Golden-twin checking (DetectorOptions::verify) against the emu device's injected faults: a
// single-bit flip in one tile of one layer is caught and located (layer, channel, tile); a healthy
// device verifies 100 pipelined frames without a mismatch; --on-mismatch fallback gives the CPU's
// results from the faulty frame on. Also the emu spec's fault options and fail-after, and that the
// device path validates a quantized network built in memory against the contract.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "../pipeline/pipeline_test_support.hpp"  // pattern_image, expect_same_detections
#include "emu_test_support.hpp"
#include "error_message.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::test {
namespace {

/// A detector small enough for 100 frames in a test, with several output tiles in layer 2 (the
/// emu's Tr = Tc = 26): conv, maxpool, conv, maxpool, conv, route, reorg, route, conv, region.
const Network& twin_network() {
    static const Network network = synthetic_network(
        "golden_twin",
        "[net]\nwidth=64\nheight=56\nchannels=3\n\n"
        "[convolutional]\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"    // 0: 64x56
        "[maxpool]\nsize=2\nstride=2\n\n"                                              // 1
        "[convolutional]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"   // 2: 32x28
        "[maxpool]\nsize=2\nstride=2\n\n"                                              // 3
        "[convolutional]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"   // 4
        "[route]\nlayers=-3\n\n"                                                       // 5
        "[reorg]\nstride=2\n\n"                                                        // 6
        "[route]\nlayers=-1,-3\n\n"                                                    // 7
        "[convolutional]\nfilters=35\nsize=1\nstride=1\npad=1\nactivation=linear\n\n"  // 8
        "[region]\nanchors=1,1,2,2,3,3,4,4,5,5\nclasses=2\ncoords=4\nnum=5\n");        // 9
    return network;
}

std::shared_ptr<const QuantizedNetwork> twin_quantized() {
    static const auto quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(twin_network()));
    return quantized;
}

DetectorOptions twin_options(const std::string& device, int every, OnMismatch on_mismatch = OnMismatch::Log) {
    DetectorOptions options;
    options.backend.device = device;
    options.backend.precision = Precision::Int16;
    options.backend.quantized = twin_quantized();
    options.verify.every = every;
    options.verify.on_mismatch = on_mismatch;
    options.thresh = 0.05f;  // synthetic weights: low probabilities; enough boxes to compare
    return options;
}

const LayerPlan& emu_layer_plan(int layer) {
    static const NetworkPlan plan = [] {
        PlanOptions options;
        options.maxima = kernel::native_build_maxima();
        return plan_network(twin_network(), options);
    }();
    return plan.layers.at(static_cast<std::size_t>(layer));
}

TEST(GoldenTwin, AnInjectedBitFlipIsCaughtAndLocatedByLayerChannelAndTile) {
    const LayerPlan& layer = emu_layer_plan(2);
    ASSERT_GE(layer.row_tiles, 2);  // the flip goes into a tile other than the first
    ASSERT_GE(layer.col_tiles, 2);
    const int tile = layer.col_tiles + 1;  // tile row 1, tile column 1
    Detector detector(twin_network(), {}, twin_options("emu:flip=2/5/" + std::to_string(tile) + "/9", 1));
    detector.detect(pattern_image(80, 60, 1));

    const VerificationStats stats = detector.verification();
    EXPECT_EQ(stats.every, 1);
    EXPECT_EQ(stats.frames_verified, 1u);
    EXPECT_EQ(stats.mismatches, 1u);
    EXPECT_FALSE(stats.fell_back);
    ASSERT_TRUE(stats.first_mismatch);
    const TwinMismatch& m = *stats.first_mismatch;
    EXPECT_EQ(m.frame, 0u);
    EXPECT_EQ(m.layer, 2);
    EXPECT_EQ(m.layer_kind, "convolutional");
    EXPECT_EQ(m.channel, 5);
    EXPECT_EQ(m.tile, tile);
    EXPECT_EQ(m.tile_row, 1);
    EXPECT_EQ(m.tile_column, 1);
    EXPECT_EQ(m.row_tiles, layer.row_tiles);
    EXPECT_EQ(m.column_tiles, layer.col_tiles);
    EXPECT_EQ(m.row, layer.tile_rows);  // the tile's first value
    EXPECT_EQ(m.column, layer.tile_cols);
    EXPECT_EQ(static_cast<uint16_t>(m.device_value) ^ static_cast<uint16_t>(m.cpu_value), 1u << 9);
    EXPECT_EQ(m.differing_values, 1u);  // one bit of one value: the layers before it all agreed
    const std::string text = m.text();
    EXPECT_NE(text.find("layer 2 (convolutional)"), std::string::npos) << text;
    EXPECT_NE(text.find("channel 5"), std::string::npos) << text;
    EXPECT_NE(text.find("output tile " + std::to_string(tile)), std::string::npos) << text;
}

TEST(GoldenTwin, AHealthyDeviceVerifies100PipelinedFramesWithoutAMismatch) {
    Detector detector(twin_network(), {}, twin_options("emu", 1));
    std::vector<std::future<DetectionResult>> results;
    results.reserve(100);
    for (int i = 0; i < 100; ++i) results.push_back(detector.submit(pattern_image(80, 60, i)));
    for (std::future<DetectionResult>& result : results) result.get();
    const VerificationStats stats = detector.verification();
    EXPECT_EQ(stats.frames_verified, 100u);
    EXPECT_EQ(stats.mismatches, 0u);
    EXPECT_FALSE(stats.first_mismatch);
}

TEST(GoldenTwin, OneFrameInNIsVerifiedAcrossDeviceWorkers) {
    DetectorOptions options = twin_options("emu", 10);
    options.device_workers = 2;
    Detector detector(twin_network(), {}, options);
    std::vector<std::future<DetectionResult>> results;
    results.reserve(40);
    for (int i = 0; i < 40; ++i) results.push_back(detector.submit(pattern_image(80, 60, i)));
    for (std::future<DetectionResult>& result : results) result.get();
    EXPECT_EQ(detector.verification().frames_verified, 4u);  // frames 0, 10, 20, 30
    EXPECT_EQ(detector.verification().mismatches, 0u);
}

TEST(GoldenTwin, FallbackGivesTheCpuResultsFromTheFaultyFrameOn) {
    // A flip in the last conv reaches the region output (and the detections) directly.
    const std::string faulty = "emu:flip=8/4/0/13";
    Detector cpu(twin_network(), {}, twin_options("cpu", 0));
    Detector logging(twin_network(), {}, twin_options(faulty, 3, OnMismatch::Log));
    Detector falling_back(twin_network(), {}, twin_options(faulty, 3, OnMismatch::Fallback));
    for (int i = 0; i < 6; ++i) {
        const Image image = pattern_image(80, 60, i);
        const DetectionResult reference = cpu.detect(image);
        const DetectionResult logged = logging.detect(image);
        EXPECT_NE(logging.region_output(), cpu.region_output()) << "frame " << i << ": the fault must show";
        const DetectionResult fallback = falling_back.detect(image);
        EXPECT_EQ(falling_back.region_output(), cpu.region_output()) << "frame " << i;
        expect_same_detections(fallback, reference, "frame " + std::to_string(i));
    }
    EXPECT_EQ(logging.verification().mismatches, 2u);  // frames 0 and 3
    EXPECT_FALSE(logging.verification().fell_back);
    const VerificationStats stats = falling_back.verification();
    EXPECT_TRUE(stats.fell_back);
    EXPECT_EQ(stats.mismatches, 1u);  // frame 0; afterwards the CPU runs and nothing is compared
    EXPECT_EQ(falling_back.device(), nullptr);
    EXPECT_NE(falling_back.device_name().find("golden twin fallback"), std::string::npos)
        << falling_back.device_name();
}

TEST(GoldenTwin, OffAndOnTheCpuNothingIsWrapped) {
    Detector off(twin_network(), {}, twin_options("emu", 0));
    EXPECT_EQ(off.device_name().find("golden twin"), std::string::npos) << off.device_name();
    off.detect(pattern_image(80, 60, 0));
    EXPECT_EQ(off.verification().frames_verified, 0u);
    Detector cpu(twin_network(), {}, twin_options("cpu", 1));  // the CPU is the reference itself
    cpu.detect(pattern_image(80, 60, 0));
    EXPECT_EQ(cpu.verification().frames_verified, 0u);
    EXPECT_EQ(cpu.verification().every, 1);
}

TEST(GoldenTwin, OnMismatchValuesAreParsedByOneFunction) {
    EXPECT_EQ(parse_on_mismatch("log"), OnMismatch::Log);
    EXPECT_EQ(parse_on_mismatch("fallback"), OnMismatch::Fallback);
    EXPECT_EQ(on_mismatch_name(OnMismatch::Fallback), "fallback");
    const std::string message = error_message([] { parse_on_mismatch("cpu"); });
    EXPECT_NE(message.find("valid values are log"), std::string::npos) << message;
}

TEST(EmuFaults, SpecOptionsParseInAnyOrderAndMalformedOnesNameTheGrammar) {
    const EmuOptions both = parse_emu_spec("emu:fail-after=12:flip=3/2/1/15:lenient");
    EXPECT_FALSE(both.strict_sync);
    EXPECT_EQ(both.fail_after_commands, 12);
    ASSERT_TRUE(both.bit_flip);
    EXPECT_EQ(both.bit_flip->layer, 3);
    EXPECT_EQ(both.bit_flip->channel, 2);
    EXPECT_EQ(both.bit_flip->tile, 1);
    EXPECT_EQ(both.bit_flip->bit, 15);
    EXPECT_EQ(emu_spec_text(both), "emu:lenient:flip=3/2/1/15:fail-after=12");  // canonical order
    EXPECT_EQ(emu_spec_text(parse_emu_spec(emu_spec_text(both))), emu_spec_text(both));
    EXPECT_EQ(emu_spec_text(parse_emu_spec("emu")), "emu");
    EXPECT_FALSE(parse_emu_spec("emu").bit_flip);
    EXPECT_EQ(parse_emu_spec("emu").fail_after_commands, -1);
    for (const char* bad :
         {"emu:", "emu:flip=1/2/3", "emu:flip=1/2/3/16", "emu:flip=1/2/3/x", "emu:fail-after=-1",
          "emu:fail-after=", "emu:lenient:lenient", "emu:flip=1/1/1/1:flip=2/2/2/2", "emu:lenient=1",
          "emu::lenient", "emu:fail-after=99999999999999999999"}) {
        const std::string message = error_message([bad] { parse_emu_spec(bad); });
        EXPECT_NE(message.find(std::string("device '") + bad + "'"), std::string::npos) << message;
        EXPECT_NE(message.find(kEmuSpecGrammar), std::string::npos) << message;
    }
}

TEST(EmuFaults, AFlipOutsideTheLayerOrOnAReorgIsRefusedNamingIt) {
    const auto network = small_quantized();  // layer 7 is a reorg, layer 0 a 24x20 conv (one tile)
    const std::vector<int16_t> input = pattern_input(network->network.input, network->input_q);
    for (const auto& [spec, expected] : std::vector<std::pair<std::string, std::string>>{
             {"emu:flip=7/0/0/0", "needs a conv or maxpool layer"},
             {"emu:flip=0/16/0/0", "names channel 16, but the layer has 16 output channels"},
             {"emu:flip=0/0/1/0", "names tile 1, but the layer has 1 output tiles"}}) {
        std::unique_ptr<Device> device = open_device(spec);
        DeviceQueue queue(*device, network);
        const std::string message = error_message([&] { queue.run(input.data()); });
        EXPECT_NE(message.find(expected), std::string::npos) << spec << ": " << message;
    }
}

TEST(EmuFaults, FailAfterNCommandsIsADeviceErrorForEveryLaterFrame) {
    const auto network = small_quantized();
    const std::vector<int16_t> input = pattern_input(network->network.input, network->input_q);
    std::unique_ptr<Device> healthy = open_device("emu");
    DeviceQueue reference(*healthy, network);
    const std::vector<int16_t> expected = reference.run(input.data());
    const auto per_frame = static_cast<long long>(reference.commands().commands.size());

    std::unique_ptr<Device> device = open_device("emu:fail-after=" + std::to_string(per_frame + 2));
    DeviceQueue queue(*device, network);
    EXPECT_EQ(queue.run(input.data()), expected);
    for (int frame = 1; frame <= 2; ++frame) {
        try {
            queue.run(input.data());
            ADD_FAILURE() << "frame " << frame << " ran on a failed device";
        } catch (const DeviceError& e) {
            EXPECT_NE(std::string(e.what()).find("fail-after=" + std::to_string(per_frame + 2)),
                      std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(device->telemetry().commands_completed, static_cast<std::uint64_t>(per_frame + 2));
}

TEST(DevicePathContract, AQuantizedNetworkBuiltInMemoryIsValidatedBeforeTheDeviceRunsIt) {
    QuantizedNetwork broken = *small_quantized();
    broken.layers[7].output_q += 1;  // the reorg rescales: the contract forbids it
    broken.layers[8].input_q += 1;
    const auto network = std::make_shared<const QuantizedNetwork>(std::move(broken));
    std::unique_ptr<Device> device = open_device("emu");
    const std::string message = error_message([&] { DeviceQueue queue(*device, network); });
    EXPECT_NE(message.find("layer 7 (reorg"), std::string::npos) << message;
    // A command list built elsewhere does not bypass it either.
    PlanOptions plan;
    plan.maxima = device->maxima();
    const CommandList list = build_command_list(*small_quantized(), plan);
    const std::string listed = error_message([&] { DeviceQueue queue(*device, network, list); });
    EXPECT_NE(listed.find("layer 7 (reorg"), std::string::npos) << listed;

    // Through the detector's backend, with --fallback cpu too: a model error, never a device error.
    QuantizedNetwork broken_detector = *twin_quantized();
    broken_detector.layers[1].output_q += 1;  // the maxpool rescales
    broken_detector.layers[2].input_q += 1;
    BackendOptions options = twin_options("emu", 0).backend;
    options.quantized = std::make_shared<const QuantizedNetwork>(std::move(broken_detector));
    options.cpu_fallback = true;
    try {
        make_backend(twin_network(), options);
        ADD_FAILURE() << "the broken model ran on the device";
    } catch (const DeviceError& e) {
        ADD_FAILURE() << "a model error was reported as a device error: " << e.what();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("layer 1 (maxpool"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace fpgacnn::test

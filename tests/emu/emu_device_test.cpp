// The emu device's contract: bit-exact with the CPU int16 engine, ownership enforced (a skipped sync
// is an error or a poison mismatch, never a silent pass), bounded waits naming the layer, commands
// checked against the buffers, traffic counted exactly as the plan predicts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "emu_test_support.hpp"
#include "error_message.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::test {
namespace {

TEST(EmuDevice, SmallNetworkMatchesTheInt16EngineLayerByLayer) {
    const auto q = small_quantized();
    Int16Engine engine(*q, Int16Isa::Scalar, 1);
    auto device = make_emu_device();
    QueueOptions options;
    options.capture_layers = true;
    DeviceQueue queue(*device, q, options);
    for (int frame = 0; frame < 2; ++frame) {
        const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, frame);
        const std::vector<int16_t> expected = engine.run(input.data());
        const std::vector<int16_t> actual = queue.run(input.data());
        for (std::size_t i = 0; i < q->network.layers.size(); ++i) {
            const std::vector<int16_t>& emu = queue.layer_output(static_cast<int>(i));
            const std::vector<int16_t>& cpu = engine.layer_output(static_cast<int>(i));
            const long at = first_difference(emu, cpu);
            ASSERT_EQ(at, -1) << "frame " << frame << " layer " << i << " differs at element " << at
                              << ": emu " << emu[static_cast<std::size_t>(at)] << ", cpu "
                              << cpu[static_cast<std::size_t>(at)];
        }
        EXPECT_EQ(actual, expected);
    }
}

TEST(EmuDevice, CountedTrafficEqualsThePlansPrediction) {
    const auto q = small_quantized();
    auto device = make_emu_device();
    DeviceQueue queue(*device, q);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q);
    queue.run(input.data());
    const std::vector<CommandStats>& stats = queue.last_stats();
    ASSERT_EQ(stats.size(), queue.commands().commands.size());
    for (const CommandStats& s : stats) {
        const LayerEstimate& e = queue.commands().plan.layers[static_cast<std::size_t>(s.layer)].estimate;
        EXPECT_EQ(s.fm_read_bytes, e.fm_read_bytes) << "layer " << s.layer;
        EXPECT_EQ(s.fm_read_bursts, e.fm_read_bursts) << "layer " << s.layer;
        EXPECT_EQ(s.fm_write_bytes, e.fm_write_bytes) << "layer " << s.layer;
        EXPECT_EQ(s.fm_write_bursts, e.fm_write_bursts) << "layer " << s.layer;
        EXPECT_EQ(s.param_read_bytes, e.param_read_bytes) << "layer " << s.layer;
        EXPECT_EQ(s.param_read_bursts, e.param_read_bursts) << "layer " << s.layer;
    }
    const DeviceTelemetry t = device->telemetry();
    EXPECT_EQ(t.commands_completed, stats.size());
    EXPECT_FALSE(t.busy);
    EXPECT_TRUE(t.control_register & kernel::regs::kApIdle);
    EXPECT_FALSE(t.power_watts.has_value());
}

TEST(EmuDevice, EightBitWeightsAreReadPackedAndCountedAsThePlanPredicts) {
    // The small network with every conv layer's weights at 8 bits (clamped into [-128, 127]).
    auto narrow = std::make_shared<QuantizedNetwork>(*small_quantized());
    int narrow_layers = 0;
    for (std::size_t i = 0; i < narrow->layers.size(); ++i) {
        if (narrow->network.layers[i].type != LayerType::Convolutional) continue;
        QuantizedLayer& layer = narrow->layers[i];
        layer.weight_bits = arith::kNarrowBits;
        for (int16_t& w : layer.weights) w = arith::saturate_to_width(w, arith::kNarrowBits);
        ++narrow_layers;
    }
    ASSERT_GT(narrow_layers, 0);
    Int16Engine engine(*narrow, Int16Isa::Scalar, 1);
    auto device = make_emu_device();
    DeviceQueue queue(*device, narrow);
    const std::vector<int16_t> input = pattern_input(narrow->network.input, narrow->input_q);
    EXPECT_EQ(queue.run(input.data()), engine.run(input.data()));
    const std::vector<CommandStats>& stats = queue.last_stats();
    const NetworkPlan wide = plan_network(narrow->network, PlanOptions{});
    for (const CommandStats& s : stats) {
        const LayerPlan& lp = queue.commands().plan.layers[static_cast<std::size_t>(s.layer)];
        EXPECT_EQ(s.param_read_bytes, lp.estimate.param_read_bytes) << "layer " << s.layer;
        EXPECT_EQ(s.param_read_bursts, lp.estimate.param_read_bursts) << "layer " << s.layer;
        if (lp.type != LayerType::Convolutional) continue;
        EXPECT_EQ(lp.command.weight_bits, static_cast<uint32_t>(arith::kNarrowBits));
        EXPECT_LT(s.param_read_bytes,
                  wide.layers[static_cast<std::size_t>(s.layer)].estimate.param_read_bytes)
            << "layer " << s.layer << ": 8-bit weights must cost fewer bytes than 16-bit ones";
    }
    EXPECT_LT(queue.commands().plan.parameter_words, wide.parameter_words);
}

// Contract 5: 8-bit tensors sit in the arena one byte per element and travel through the kernel's
// byte-wide ports. Every layer's output (read back and widened by the queue) equals the CPU engine's,
// the counters equal the plan's prediction, and the feature-map bytes are half the 16-bit plan's.
TEST(EmuDevice, EightBitFeatureMapsAreStoredAsBytesAndCountedAsThePlanPredicts) {
    auto narrow = std::make_shared<QuantizedNetwork>(*small_quantized());
    for (std::size_t i = 0; i < narrow->layers.size(); ++i) {
        QuantizedLayer& layer = narrow->layers[i];
        layer.output_bits = arith::kNarrowBits;  // conv outputs clamp to 8 bits; the others carry it
        if (narrow->network.layers[i].type != LayerType::Convolutional) continue;
        layer.weight_bits = arith::kNarrowBits;
        for (int16_t& w : layer.weights) w = arith::saturate_to_width(w, arith::kNarrowBits);
    }
    Int16Engine engine(*narrow, Int16Isa::Scalar, 1);
    auto device = make_emu_device();
    QueueOptions options;
    options.capture_layers = true;
    DeviceQueue queue(*device, narrow, options);
    const std::vector<int16_t> input = pattern_input(narrow->network.input, narrow->input_q);
    EXPECT_EQ(queue.run(input.data()), engine.run(input.data()));
    int narrow_values = 0;
    for (std::size_t i = 0; i < narrow->network.layers.size(); ++i) {
        const std::vector<int16_t>& emu = queue.layer_output(static_cast<int>(i));
        EXPECT_EQ(emu, engine.layer_output(static_cast<int>(i))) << "layer " << i;
        for (const int16_t v : emu) narrow_values += v < 0 || v > 63;  // not just small positives
    }
    EXPECT_GT(narrow_values, 100) << "the layers should hold negative and large 8-bit values";

    PlanOptions weights_only;
    weights_only.weight_bits = conv_weight_bits(*narrow);
    const NetworkPlan wide = plan_network(narrow->network, weights_only);
    const NetworkPlan& plan = queue.commands().plan;
    EXPECT_LT(plan.arena_elements, wide.arena_elements);
    for (const CommandStats& s : queue.last_stats()) {
        const std::size_t i = static_cast<std::size_t>(s.layer);
        const LayerEstimate& e = plan.layers[i].estimate;
        EXPECT_EQ(plan.layers[i].output.bits, arith::kNarrowBits) << "layer " << i;
        EXPECT_EQ(s.fm_read_bytes, e.fm_read_bytes) << "layer " << i;
        EXPECT_EQ(s.fm_write_bytes, e.fm_write_bytes) << "layer " << i;
        EXPECT_EQ(s.fm_read_bursts, e.fm_read_bursts) << "layer " << i;
        EXPECT_EQ(s.fm_write_bursts, e.fm_write_bursts) << "layer " << i;
        const LayerEstimate& w = wide.layers[i].estimate;
        EXPECT_EQ(2 * s.fm_write_bytes, w.fm_write_bytes) << "layer " << i;
        // Layer 0 reads the 16-bit image.
        EXPECT_EQ((i == 0 ? 1 : 2) * s.fm_read_bytes, w.fm_read_bytes) << "layer " << i;
    }
}

TEST(EmuDevice, SkippedInputSyncIsAClearError) {
    auto device = make_emu_device();
    QueueOptions options;
    options.skip_input_sync = true;
    DeviceQueue queue(*device, small_quantized(), options);
    const std::vector<int16_t> input = pattern_input(small_quantized()->network.input, kInputQ);
    const std::string message = error_message([&] { queue.run(input.data()); });
    EXPECT_NE(message.find("layer 0 (convolutional)"), std::string::npos) << message;
    EXPECT_NE(message.find("never synced"), std::string::npos) << message;
    EXPECT_NE(message.find("feature-map arena"), std::string::npos) << message;
}

TEST(EmuDevice, SkippedInputSyncInLenientModeIsAPoisonMismatch) {
    const auto q = small_quantized();
    Int16Engine engine(*q, Int16Isa::Scalar, 1);
    auto device = open_device("emu:lenient");
    QueueOptions options;
    options.skip_input_sync = true;
    DeviceQueue queue(*device, q, options);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q);
    EXPECT_NE(queue.run(input.data()), engine.run(input.data()))
        << "the kernel computed on data that was never synced, yet the result matched";
}

/// One maxpool command through the raw Device API.
struct OneCommand {
    std::unique_ptr<Device> device = make_emu_device();
    DeviceBuffer arena = device->allocate(2 * 64, BufferRole::FeatureMaps, "arena");
    DeviceBuffer params = device->allocate(64, BufferRole::Parameters, "params");
    DeviceCommand command;

    OneCommand() {
        command.layer = 3;
        command.description = "layer 3 (maxpool)";
        kernel::LayerCommand& c = command.command;
        c.op = kernel::kOpMaxPool;
        c.in_c = c.out_c = 1, c.in_h = c.in_w = 4, c.out_h = c.out_w = 2;
        c.kernel_size = 2, c.stride = 2, c.tile_rows = 2, c.tile_cols = 2;
        c.input_offset = 0, c.output_offset = 32, c.output_bits = 16, c.weight_bits = 16;
        c.input_bits = 16;
        auto* host = static_cast<int16_t*>(arena.host());
        for (int i = 0; i < 16; ++i) host[i] = static_cast<int16_t>(i);
    }
    int16_t* host() const { return static_cast<int16_t*>(arena.host()); }
};

TEST(EmuDevice, HostSeesPoisonUntilItSyncsTheOutputBack) {
    OneCommand t;
    t.device->sync(t.arena, SyncDirection::ToDevice, 0, 32);
    t.device->start(t.command, t.arena, t.params);
    t.device->wait(std::chrono::milliseconds(5000));
    const int16_t poison = static_cast<int16_t>(0xA5A5);
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(t.host()[32 + i], poison) << "output " << i << " visible before sync";
    t.device->sync(t.arena, SyncDirection::FromDevice, 64, 8);
    EXPECT_EQ((std::vector<int16_t>(t.host() + 32, t.host() + 36)), (std::vector<int16_t>{5, 7, 13, 15}));
}

TEST(EmuDevice, PartiallySyncedInputNamesTheFirstMissingByte) {
    OneCommand t;
    t.device->sync(t.arena, SyncDirection::ToDevice, 0, 20);  // 10 of the 16 values
    const std::string message = error_message([&] { t.device->start(t.command, t.arena, t.params); });
    EXPECT_NE(message.find("layer 3 (maxpool)"), std::string::npos) << message;
    EXPECT_NE(message.find("byte 20"), std::string::npos) << message;
}

TEST(EmuDevice, ProtocolViolationsAreErrors) {
    OneCommand t;
    t.device->sync(t.arena, SyncDirection::ToDevice, 0, 32);
    EXPECT_NE(error_message([&] {
                  t.device->wait(std::chrono::milliseconds(10));
              }).find("without a started command"),
              std::string::npos);
    t.device->start(t.command, t.arena, t.params);
    EXPECT_NE(error_message([&] { t.device->start(t.command, t.arena, t.params); }).find("still running"),
              std::string::npos);
    t.device->wait(std::chrono::milliseconds(5000));

    DeviceCommand bad = t.command;
    bad.command.tile_rows = 1000;
    EXPECT_NE(error_message([&] { t.device->start(bad, t.arena, t.params); }).find("kernel rejects"),
              std::string::npos);
    bad = t.command;
    bad.command.output_offset = 62;  // 4 outputs from element 62 run past the 64-element arena
    EXPECT_NE(
        error_message([&] { t.device->start(bad, t.arena, t.params); }).find("does not match the buffer"),
        std::string::npos);
    bad = t.command;
    bad.command.output_offset = 8;
    EXPECT_NE(error_message([&] { t.device->start(bad, t.arena, t.params); }).find("overlap"),
              std::string::npos);
    const auto other = make_emu_device();
    const DeviceBuffer foreign = other->allocate(2 * 64, BufferRole::FeatureMaps, "foreign");
    EXPECT_NE(error_message([&] {
                  t.device->sync(foreign, SyncDirection::ToDevice, 0, 2);
              }).find("does not belong"),
              std::string::npos);
    EXPECT_NE(error_message([&] { t.device->start(t.command, foreign, t.params); }).find("does not belong"),
              std::string::npos);
    EXPECT_NE(
        error_message([&] { t.device->sync(t.arena, SyncDirection::ToDevice, 100, 100); }).find("outside"),
        std::string::npos);
}

TEST(EmuDevice, BuffersDroppedWhileTheirCommandRunsLiveUntilTheWait) {
    // The device holds the running command's buffers: dropping the handles (as a queue being destroyed
    // after a failure would) cannot free what the kernel still reads and writes (ASan checks it).
    OneCommand t;
    t.device->sync(t.arena, SyncDirection::ToDevice, 0, 32);
    t.device->start(t.command, t.arena, t.params);
    t.arena.reset();
    t.params.reset();
    EXPECT_FALSE(t.arena);
    EXPECT_EQ(t.device->wait(std::chrono::milliseconds(5000)).layer, 3);
    EXPECT_NE(error_message([&] {
                  t.device->sync(t.arena, SyncDirection::FromDevice, 0, 2);
              }).find("handle is empty"),
              std::string::npos);
}

TEST(EmuDevice, UnsyncedParametersAreAnError) {
    const auto q = small_quantized();
    auto device = make_emu_device();
    const CommandList list = build_command_list(*q, [&] {
        PlanOptions o;
        o.maxima = device->maxima();
        return o;
    }());
    DeviceBuffer arena =
        device->allocate(2 * list.plan.arena_elements, BufferRole::FeatureMaps, "feature-map arena");
    DeviceBuffer params = device->allocate(2 * list.parameters.size(), BufferRole::Parameters, "parameters");
    std::memcpy(params.host(), list.parameters.data(), 2 * list.parameters.size());  // written, never synced
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q);
    std::memcpy(static_cast<int16_t*>(arena.host()) + list.plan.input.offset, input.data(), 2 * input.size());
    device->sync(arena, SyncDirection::ToDevice, 2 * list.plan.input.offset, 2 * input.size());
    const std::string message = error_message([&] { device->start(list.commands.front(), arena, params); });
    EXPECT_NE(message.find("'parameters'"), std::string::npos) << message;
    EXPECT_NE(message.find("layer 0"), std::string::npos) << message;
}

// The parameters stream in layer by layer: a released range is gone from the host (a sync of it is
// an error naming the byte), the kernel still reads it, and the rest of the buffer still syncs.
TEST(EmuDevice, ReleasedParameterRangesAreKeptOnTheDeviceOnly) {
    OneCommand t;
    auto* host = static_cast<int16_t*>(t.params.host());
    for (int i = 0; i < 32; ++i) host[i] = static_cast<int16_t>(i);
    t.device->sync(t.params, SyncDirection::ToDevice, 0, 32);
    t.device->release_host_copy(t.params, 0, 32);
    const std::string message =
        error_message([&] { t.device->sync(t.params, SyncDirection::ToDevice, 16, 32); });
    EXPECT_NE(message.find("release_host_copy() gave up byte 16"), std::string::npos) << message;
    t.device->sync(t.params, SyncDirection::ToDevice, 32, 32);  // the part still held
    EXPECT_NE(error_message([&] { t.device->release_host_copy(t.params, 60, 8); }).find("outside buffer"),
              std::string::npos);
    // The layer still runs: the kernel reads the device side.
    t.device->sync(t.arena, SyncDirection::ToDevice, 0, 32);
    t.device->start(t.command, t.arena, t.params);
    t.device->wait(std::chrono::milliseconds(5000));
    t.device->sync(t.arena, SyncDirection::FromDevice, 64, 8);
    EXPECT_EQ((std::vector<int16_t>(t.host() + 32, t.host() + 36)), (std::vector<int16_t>{5, 7, 13, 15}));
}

TEST(EmuDevice, AStalledLayerTimesOutWithItsName) {
    EmuOptions options;
    options.stall_layer = 2;
    auto device = make_emu_device(options);
    QueueOptions queue_options;
    queue_options.layer_timeout = std::chrono::milliseconds(200);
    DeviceQueue queue(*device, small_quantized(), queue_options);
    const std::vector<int16_t> input = pattern_input(small_quantized()->network.input, kInputQ);
    const std::string message = error_message([&] { queue.run(input.data()); });
    EXPECT_NE(message.find("layer 2 (convolutional) did not finish within 200 ms"), std::string::npos)
        << message;
    EXPECT_TRUE(device->telemetry().busy);
}

TEST(EmuDevice, OpenDeviceNamesValidValues) {
    EXPECT_NE(open_device("emu")->name().find("emu"), std::string::npos);
    EXPECT_NE(error_message([] { open_device("gpu"); }).find("valid values are emu"), std::string::npos);
#ifdef FPGACNN_HAVE_XRT  // the xrt driver is built: it wants an xclbin (tests/xrt covers the rest)
    unsetenv("FPGACNN_XCLBIN");
    EXPECT_NE(error_message([] { open_device("xrt:0"); }).find("no xclbin given"), std::string::npos);
#else
    EXPECT_NE(error_message([] { open_device("xrt:0"); }).find("no xrt driver"), std::string::npos);
#endif
}

}  // namespace
}  // namespace fpgacnn::test

// Faults of the IP and its platform, each a clear Error within a bounded time, never a hang or a
// crash, and the runtime can run the next frame afterwards (or falls back to the CPU when asked).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "uio_test_support.hpp"

namespace fpgacnn::test {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr auto kNoHang = std::chrono::seconds(5);  // generous: every fault below takes well under 1 s

QueueOptions short_deadline() {
    QueueOptions options;
    options.layer_timeout = milliseconds(300);
    return options;
}

std::vector<int16_t> cpu_output(const std::vector<int16_t>& input) {
    Int16Engine engine(*small_quantized(), Int16Isa::Scalar, 1);
    return engine.run(input.data());
}

/// The Error opening the simulated IP built with `sim_options` gives.
std::string open_error(const SimUioOptions& sim_options) {
    const auto sim = start_sim(sim_options);
    return error_message([&] { make_uio_device("fpgacnn_accel", driver_options(*sim)); });
}

TEST(UioFaults, IpNeverFinishesTimeoutNamesTheLayerThenTheNextFrameRunsOnceItClears) {
    const auto sim = start_sim();
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    DeviceQueue queue(*device, small_quantized(), short_deadline());
    const std::vector<int16_t> input =
        pattern_input(small_quantized()->network.input, small_quantized()->input_q);
    const std::vector<int16_t> expected = cpu_output(input);

    sim->set_fault(SimFault::NeverFinish, 1);
    auto begin = Clock::now();
    std::string message = error_message([&] { queue.run(input.data()); });
    EXPECT_LT(Clock::now() - begin, kNoHang);
    EXPECT_TRUE(contains(message, "layer 0 (convolutional)")) << message;
    EXPECT_TRUE(contains(message, "did not finish within 300 ms")) << message;
    EXPECT_TRUE(contains(message, "cannot be aborted")) << message;
    EXPECT_TRUE(device->telemetry().busy);

    // Still stalled: the next frame is refused after the grace period instead of piling onto the IP.
    begin = Clock::now();
    message = error_message([&] { queue.run(input.data()); });
    EXPECT_LT(Clock::now() - begin, kNoHang);
    EXPECT_TRUE(contains(message, "still busy")) << message;

    sim->release_stall();  // the IP finishes late; the driver discards that result
    EXPECT_EQ(queue.run(input.data()), expected);
    EXPECT_FALSE(device->telemetry().busy);
}

TEST(UioFaults, WrongStatusIsAnErrorAndTheNextFrameIsCorrect) {
    const auto sim = start_sim();
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    DeviceQueue queue(*device, small_quantized(), short_deadline());
    const std::vector<int16_t> input =
        pattern_input(small_quantized()->network.input, small_quantized()->input_q);
    sim->set_fault(SimFault::WrongStatus, 1);
    const std::string message = error_message([&] { queue.run(input.data()); });
    EXPECT_TRUE(contains(message, "ended with control status 0x106")) << message;
    EXPECT_TRUE(contains(message, "layer 0")) << message;
    EXPECT_EQ(queue.run(input.data()), cpu_output(input));
}

/// Runs a frame whose first layer never finishes while the device vanishes 100 ms in; returns the
/// error, checking that it came well before the 20 s layer deadline.
std::string frame_while_the_device_vanishes(SimUio& sim, DeviceQueue& queue) {
    const std::vector<int16_t> input =
        pattern_input(small_quantized()->network.input, small_quantized()->input_q);
    sim.set_fault(SimFault::NeverFinish, 1);
    std::thread unbind([&] {
        std::this_thread::sleep_for(milliseconds(100));
        sim.disappear();
    });
    const auto begin = Clock::now();
    const std::string message = error_message([&] { queue.run(input.data()); });
    unbind.join();
    EXPECT_LT(Clock::now() - begin, kNoHang);
    return message;
}

QueueOptions long_deadline() {
    QueueOptions options;
    options.layer_timeout = milliseconds(20000);  // the disappearance, not the deadline, must end the wait
    return options;
}

TEST(UioFaults, DeviceDisappearsWhileWaitingIsReportedPromptly) {
    const auto sim = start_sim();
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    DeviceQueue queue(*device, small_quantized(), long_deadline());
    const std::string message = frame_while_the_device_vanishes(*sim, queue);
    EXPECT_TRUE(contains(message, "disappeared while waiting for layer 0")) << message;
    EXPECT_TRUE(contains(message, "--fallback cpu")) << message;
    // The next frame fails at once with the same diagnosis, no crash.
    const std::vector<int16_t> input =
        pattern_input(small_quantized()->network.input, small_quantized()->input_q);
    EXPECT_TRUE(contains(error_message([&] { queue.run(input.data()); }), "is gone"));
}

TEST(UioFaults, DeviceGoneWhilePollingIsNoticedToo) {
    SimUioOptions sim_options;
    sim_options.interrupt = false;
    const auto sim = start_sim(sim_options);
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    DeviceQueue queue(*device, small_quantized(), long_deadline());
    const std::string message = frame_while_the_device_vanishes(*sim, queue);
    EXPECT_TRUE(contains(message, "disappeared while waiting for layer 0")) << message;
}

TEST(UioFaults, UdmaBufTooSmallSaysHowToEnlargeIt) {
    SimUioOptions sim_options;
    sim_options.udmabuf_bytes = 64 * 1024;
    const auto sim = start_sim(sim_options);
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    const std::string message = error_message([&] { DeviceQueue queue(*device, small_quantized()); });
    EXPECT_TRUE(contains(message, "udmabuf0: no room for")) << message;
    EXPECT_TRUE(contains(message, "65536-byte u-dma-buf")) << message;
    EXPECT_TRUE(contains(message, "modprobe u-dma-buf udmabuf0=")) << message;
    // The device stays usable for what fits.
    EXPECT_NO_THROW(device->allocate(4096, BufferRole::FeatureMaps, "small"));
}

TEST(UioFaults, NoUdmaBufAndShortCmaSayWhichBootArgumentToSet) {
    SimUioOptions sim_options;
    sim_options.udmabuf_bytes = 0;
    sim_options.cma_total_bytes = 16u << 20;
    sim_options.cma_free_bytes = 2u << 20;
    const std::string message = open_error(sim_options);
    EXPECT_TRUE(contains(message, "no u-dma-buf device")) << message;
    EXPECT_TRUE(contains(message, "CmaTotal 16 MiB, CmaFree 2 MiB")) << message;
    EXPECT_TRUE(contains(message, "boot with cma=")) << message;
}

TEST(UioFaults, FingerprintOfAnotherArithmeticIsRefusedAtOpen) {
    SimUioOptions sim_options;
    sim_options.fault = SimFault::WrongFingerprint;
    const std::string message = open_error(sim_options);
    EXPECT_TRUE(contains(message, "arithmetic contract v99")) << message;
    EXPECT_TRUE(contains(message, "rebuild the bitstream")) << message;
}

TEST(UioFaults, AnotherIpBehindTheNameIsRefusedAtOpen) {
    SimUioOptions sim_options;
    sim_options.fault = SimFault::NotFpgacnn;
    const std::string message = open_error(sim_options);
    EXPECT_TRUE(contains(message, "did not answer the identify command with an fpgacnn fingerprint"))
        << message;
}

TEST(UioFaults, PlanForOtherMaximaIsRefusedAndThePlanFollowsTheDevice) {
    SimUioOptions sim_options;
    sim_options.fault = SimFault::SmallTiles;  // the bitstream says Tr = Tc = 8
    sim_options.fault_commands = 1;
    const auto sim = start_sim(sim_options);
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    ASSERT_EQ(device->maxima().tr, 8);
    // A command list planned for the library's own (larger) maxima is refused before ap_start.
    PlanOptions native;
    const CommandList list = build_command_list(*small_quantized(), native);
    const DeviceBuffer arena =
        device->allocate(2 * list.plan.arena_elements, BufferRole::FeatureMaps, "arena");
    const DeviceBuffer params =
        device->allocate(2 * list.parameters.size(), BufferRole::Parameters, "params");
    const std::string message = error_message([&] { device->start(list.commands.front(), arena, params); });
    EXPECT_TRUE(contains(message, "exceed the device's kernel build (Tr=8 Tc=8")) << message;
    EXPECT_TRUE(contains(message, "plan for this device's maxima")) << message;
    // DeviceQueue plans for the device's maxima: smaller tiles, same bits.
    DeviceQueue queue(*device, small_quantized());
    const std::vector<int16_t> input =
        pattern_input(small_quantized()->network.input, small_quantized()->input_q);
    EXPECT_EQ(queue.run(input.data()), cpu_output(input));
}

TEST(UioFaults, UnreadableNodeSaysHowToGrantAccess) {
    if (geteuid() == 0) GTEST_SKIP() << "running as root: file permissions do not apply";
    const auto sim = start_sim();
    ASSERT_EQ(chmod((sim->options().root + "/dev/uio0").c_str(), 0), 0);
    const std::string message =
        error_message([&] { make_uio_device("fpgacnn_accel", driver_options(*sim)); });
    EXPECT_TRUE(contains(message, "Permission denied")) << message;
    EXPECT_TRUE(contains(message, "udev rule")) << message;
}

/// A tiny detector (conv, maxpool, conv, region) and its naive int16 model.
struct RegionModel {
    Network network;
    std::shared_ptr<const QuantizedNetwork> quantized;
    std::vector<float> input;
};

const RegionModel& region_model() {
    static const RegionModel model = [] {
        const std::string cfg = scratch_dir("uio_region_model") + "/region.cfg";
        std::ofstream(cfg) << "[net]\nwidth=32\nheight=32\nchannels=3\n\n"
                              "[convolutional]\nfilters=8\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
                              "[maxpool]\nsize=2\nstride=2\n\n"
                              "[convolutional]\nfilters=35\nsize=1\nstride=1\npad=1\nactivation=linear\n\n"
                              "[region]\nanchors=1,1,2,2,3,3,4,4,5,5\nclasses=2\ncoords=4\nnum=5\n";
        RegionModel m;
        m.network = load_darknet_cfg(cfg);
        fill_synthetic_weights(m.network, 3);
        fold_batchnorm(m.network);
        m.quantized = std::make_shared<const QuantizedNetwork>(naive_quantize(m.network));
        m.input.resize(m.network.input.size());
        for (std::size_t i = 0; i < m.input.size(); ++i) m.input[i] = static_cast<float>(i % 97) / 97.0f;
        return m;
    }();
    return model;
}

std::unique_ptr<Backend> int16_backend(const std::string& device, bool cpu_fallback = false) {
    const RegionModel& m = region_model();
    BackendOptions options;
    options.device = device;
    options.precision = Precision::Int16;
    options.quantized = m.quantized;
    options.cpu_fallback = cpu_fallback;
    return make_backend(m.network, options);
}

std::vector<float> cpu_region_output() { return int16_backend("cpu")->run(region_model().input.data()); }

// --fallback cpu: the device fails mid-run, the frame still comes out of the CPU int16 backend with
// the same values, and so do the later ones.
TEST(UioFaults, CpuFallbackAfterADeviceErrorGivesTheSameRegionOutput) {
    const RegionModel& m = region_model();
    const std::vector<float> expected = cpu_region_output();
    const auto sim = start_sim();
    ASSERT_EQ(setenv(kUioRootVariable, sim->options().root.c_str(), 1), 0);
    auto device = int16_backend("uio:fpgacnn_accel", true);
    EXPECT_EQ(device->run(m.input.data()), expected);
    EXPECT_TRUE(contains(device->name(), "falls back to the CPU")) << device->name();

    sim->set_fault(SimFault::WrongStatus, 1);
    EXPECT_EQ(device->run(m.input.data()), expected);  // the failing frame, recomputed on the CPU
    EXPECT_TRUE(contains(device->name(), "fallback from uio:fpgacnn_accel")) << device->name();
    EXPECT_EQ(device->run(m.input.data()), expected);

    // Without the fallback the same fault is the caller's error.
    auto strict = int16_backend("uio:fpgacnn_accel");
    sim->set_fault(SimFault::WrongStatus, 1);
    EXPECT_TRUE(contains(error_message([&] { strict->run(m.input.data()); }), "control status"));
    unsetenv(kUioRootVariable);
}

TEST(UioFaults, MissingDeviceIsAClearErrorOrTheCpuWhenFallingBack) {
    const RegionModel& m = region_model();
    ASSERT_EQ(setenv(kUioRootVariable, scratch_dir("uio_no_device").c_str(), 1), 0);
    EXPECT_TRUE(contains(error_message([&] { int16_backend("uio:fpgacnn_accel"); }),
                         "no UIO device named 'fpgacnn_accel'"));
    auto fallback = int16_backend("uio:fpgacnn_accel", true);
    EXPECT_TRUE(contains(fallback->name(), "(fallback)")) << fallback->name();
    EXPECT_EQ(fallback->run(m.input.data()), cpu_region_output());
    unsetenv(kUioRootVariable);
}

}  // namespace
}  // namespace fpgacnn::test

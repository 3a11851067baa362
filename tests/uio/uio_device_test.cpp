// The uio driver against the simulated IP: discovery by name, the fingerprint read at open, the
// register map decoded by the IP (proved by bit-exact results), both address layouts, interrupt and
// polling waits, and the buffer bookkeeping.
#include <gtest/gtest.h>

#include <cstring>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/int16_engine.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "uio_test_support.hpp"

namespace fpgacnn::test {
namespace {

/// Runs two frames of the small network on `device`, layer by layer equal to the CPU int16 engine.
void expect_bit_exact(Device& device) {
    const auto q = small_quantized();
    Int16Engine engine(*q, Int16Isa::Scalar, 1);
    QueueOptions options;
    options.capture_layers = true;
    options.layer_timeout = std::chrono::milliseconds(10000);
    DeviceQueue queue(device, q, options);
    for (int frame = 0; frame < 2; ++frame) {
        const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, frame);
        const std::vector<int16_t> expected = engine.run(input.data());
        const std::vector<int16_t> actual = queue.run(input.data());
        for (std::size_t i = 0; i < q->network.layers.size(); ++i) {
            const long at = first_difference(queue.layer_output(static_cast<int>(i)),
                                             engine.layer_output(static_cast<int>(i)));
            ASSERT_EQ(at, -1) << "frame " << frame << " layer " << i << " differs at element " << at;
        }
        EXPECT_EQ(actual, expected);
    }
}

TEST(UioDevice, OpensByNameAndReadsTheFingerprintFromTheIp) {
    const auto sim = start_sim();
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    EXPECT_EQ(sim->commands_completed(), 1u);  // the identify command
    EXPECT_GE(sim->interrupts_raised(), 1u);
    const KernelFingerprint native = native_kernel_fingerprint();
    EXPECT_EQ(device->fingerprint().text(), native.text());
    EXPECT_EQ(device->maxima().tr, native.maxima.tr);
    EXPECT_NE(device->name().find("uio:fpgacnn_accel (uio0, Tm="), std::string::npos) << device->name();
}

TEST(UioDevice, OpensByNodeAndRefusesAnUnknownNameListingWhatExists) {
    const auto sim = start_sim();
    EXPECT_NO_THROW(make_uio_device("uio0", driver_options(*sim)));
    const std::string message = error_message([&] { make_uio_device("other_ip", driver_options(*sim)); });
    EXPECT_NE(message.find("no UIO device named 'other_ip'"), std::string::npos) << message;
    EXPECT_NE(message.find("uio0 'fpgacnn_accel'"), std::string::npos) << message;
    EXPECT_NE(message.find("--list-devices"), std::string::npos) << message;
}

TEST(UioDevice, SecondOpenOfTheSameIpIsRefused) {
    const auto sim = start_sim();
    const auto first = make_uio_device("fpgacnn_accel", driver_options(*sim));
    const std::string message =
        error_message([&] { make_uio_device("fpgacnn_accel", driver_options(*sim)); });
    EXPECT_NE(message.find("in use by another process"), std::string::npos) << message;
}

/// How the simulated IP is built and how the driver talks to it.
struct Wiring {
    bool address64 = true;
    bool interrupt_wired = true;  // false: no interrupt, the driver falls back to polling by itself
    bool poll_option = false;     // the driver ignores the interrupt
};

/// Two frames of the small network through the driver and the simulated IP wired as `wiring`;
/// returns the simulator for its counters.
std::unique_ptr<SimUio> run_bit_exact(const Wiring& wiring) {
    SimUioOptions sim_options;
    sim_options.address64 = wiring.address64;
    sim_options.interrupt = wiring.interrupt_wired;
    auto sim = start_sim(sim_options);
    UioOptions options = driver_options(*sim);
    options.address_bits = wiring.address64 ? 64 : 32;
    options.poll = wiring.poll_option;
    expect_bit_exact(*make_uio_device("fpgacnn_accel", options));
    EXPECT_EQ(sim->address_errors(), 0u);
    return sim;
}

TEST(UioDevice, BitExactWithInterrupt64BitAddresses) {
    const auto sim = run_bit_exact(Wiring{true, true, false});
    EXPECT_EQ(sim->interrupts_raised(), sim->commands_completed());  // every command woke the driver
}

TEST(UioDevice, BitExactPolling32BitAddressesLikeZynq7000) {
    EXPECT_EQ(run_bit_exact(Wiring{false, false, false})->interrupts_raised(), 0u);
}

TEST(UioDevice, PollOptionIgnoresTheInterrupt) {
    EXPECT_EQ(run_bit_exact(Wiring{true, true, true})->interrupts_raised(), 0u);
}

TEST(UioDevice, MismatchedAddressLayoutIsCaughtNotSilentlyWrong) {
    SimUioOptions sim_options;
    sim_options.address64 = false;  // a Zynq-7000 build
    const auto sim = start_sim(sim_options);
    UioOptions options = driver_options(*sim);
    options.address_bits = 64;  // the host writes the 64-bit layout: params' address lands elsewhere
    options.identify_timeout = std::chrono::milliseconds(1000);
    const std::string message = error_message([&] { make_uio_device("fpgacnn_accel", options); });
    EXPECT_FALSE(message.empty());
    EXPECT_GE(sim->address_errors(), 1u);
}

TEST(UioDevice, SpecGrammarThroughOpenDevice) {
    const auto sim = start_sim();
    ASSERT_EQ(setenv(kUioRootVariable, sim->options().root.c_str(), 1), 0);
    const auto device = open_device("uio:fpgacnn_accel:poll:udmabuf0");
    EXPECT_NE(device->name().find("uio:fpgacnn_accel"), std::string::npos);
    const std::string bad = error_message([] { open_device("uio:fpgacnn_accel:fast"); });
    EXPECT_NE(bad.find("unknown option 'fast'"), std::string::npos) << bad;
    EXPECT_NE(error_message([] { open_device("uio:"); }).find("name the IP's UIO device"), std::string::npos);
    unsetenv(kUioRootVariable);
}

TEST(UioDevice, BuffersAreSubAllocatedWithBusAddressesAndChecked) {
    const auto sim = start_sim();
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    DeviceBuffer a = device->allocate(1000, BufferRole::FeatureMaps, "a");
    const DeviceBuffer b = device->allocate(5000, BufferRole::Parameters, "b");
    const std::uint64_t a_address = a.device_address();
    EXPECT_EQ(a_address % 4096, 0u);
    EXPECT_GE(a_address, sim->options().phys_addr);
    EXPECT_GE(b.device_address(), a_address + 4096);
    EXPECT_EQ(static_cast<std::uint8_t*>(b.host()) - static_cast<std::uint8_t*>(a.host()),
              static_cast<std::ptrdiff_t>(b.device_address() - a_address));
    std::memset(b.host(), 1, 5000);
    device->sync(b, SyncDirection::ToDevice, 0, 5000);
    EXPECT_NE(error_message([&] {
                  device->sync(a, SyncDirection::ToDevice, 900, 200);
              }).find("which has 1000 bytes"),
              std::string::npos);
    a.reset();                                                                   // frees a's range
    const DeviceBuffer c = device->allocate(800, BufferRole::FeatureMaps, "c");  // reuses a's place
    EXPECT_EQ(c.device_address(), a_address);
    EXPECT_NE(error_message([&] { device->sync(a, SyncDirection::ToDevice, 0, 2); }).find("handle is empty"),
              std::string::npos);
}

TEST(UioDevice, ABufferOfAnotherDeviceIsRefusedAndMayOutliveItsDevice) {
    const auto sim = start_sim();
    auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    const auto emu = make_emu_device();
    const DeviceBuffer foreign = emu->allocate(4096, BufferRole::FeatureMaps, "foreign");
    const std::string message = error_message([&] { device->sync(foreign, SyncDirection::ToDevice, 0, 2); });
    EXPECT_NE(message.find("buffer 'foreign' does not belong to uio:fpgacnn_accel"), std::string::npos)
        << message;
    DeviceBuffer kept = device->allocate(4096, BufferRole::FeatureMaps, "kept");
    device.reset();  // the u-dma-buf mapping stays while the handle lives
    std::memset(kept.host(), 7, kept.bytes());
    EXPECT_EQ(static_cast<const std::uint8_t*>(kept.host())[4095], 7);
}

TEST(UioDevice, CommandOutsideItsBufferIsRefusedBeforeTheIpStarts) {
    const auto sim = start_sim();
    const auto device = make_uio_device("fpgacnn_accel", driver_options(*sim));
    const DeviceBuffer arena = device->allocate(64, BufferRole::FeatureMaps, "tiny arena");
    DeviceCommand command;
    command.layer = 0;
    command.description = "layer 0 (maxpool)";
    command.command = kernel::LayerCommand{};
    command.command.op = kernel::kOpMaxPool;
    command.command.in_c = command.command.out_c = 4;
    command.command.in_h = command.command.in_w = 8;
    command.command.out_h = command.command.out_w = 4;
    command.command.kernel_size = command.command.stride = 2;
    command.command.tile_rows = command.command.tile_cols = 4;
    command.command.output_bits = 16;
    command.command.weight_bits = 16;
    command.command.input_bits = 16;
    command.command.output_offset = 256;
    const std::uint64_t before = sim->commands_started();
    const std::string message = error_message([&] { device->start(command, arena, arena); });
    EXPECT_NE(message.find(
                  "layer 0 (maxpool): writes its output to bytes [512, 640) but 'tiny arena' has 64 bytes"),
              std::string::npos)
        << message;
    EXPECT_EQ(sim->commands_started(), before);
}

}  // namespace
}  // namespace fpgacnn::test

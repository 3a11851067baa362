// The xrt driver on XRT's no-op device (XCL_EMULATION_MODE=noop) with xclbins written by the
// tests: device open, xclbin load, kernel and compute-unit lookup, bank placement, allocation,
// uploads and range syncs, layer commands through xrt::run, and the refusals. The no-op device
// accepts and completes every command without executing it, so nothing here checks computed values
// (the emu tests do that for the same commands).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>

#include "../emu/emu_test_support.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/power.hpp"
#include "xrt_test_env.hpp"

#include <xrt/xclbin.h>

namespace fpgacnn::test {
namespace {

/// Evaluates `text` once (it often runs an action) and checks it holds `part`.
#define EXPECT_CONTAINS(text, part)                                                \
    do {                                                                           \
        const std::string& contains_text_ = (text);                                \
        EXPECT_NE(contains_text_.find(part), std::string::npos) << contains_text_; \
    } while (0)

class XrtNoop : public ::testing::Test {
protected:
    void SetUp() override {
        use_xrt_noop_device();
        unsetenv("FPGACNN_XCLBIN");
        xclbin_ = write_test_xclbin("fpgacnn.xclbin");
    }
    std::unique_ptr<Device> open(const std::string& suffix = "") {
        return open_device("xrt:0" + suffix + "@" + xclbin_);
    }
    std::string xclbin_;
};

DeviceCommand maxpool_command(int layer) {
    DeviceCommand c;
    c.layer = layer;
    c.description = "layer " + std::to_string(layer) + " (maxpool)";
    kernel::LayerCommand& k = c.command;
    k = kernel::LayerCommand{};
    k.op = kernel::kOpMaxPool;
    k.in_c = k.out_c = 4;
    k.in_h = k.in_w = 8;
    k.out_h = k.out_w = 4;
    k.kernel_size = k.stride = 2;
    k.tile_rows = k.tile_cols = 4;
    k.output_bits = 16;
    k.weight_bits = 16;
    k.input_bits = 16;
    k.input_offset = 0;
    k.output_offset = 4 * 8 * 8;
    return c;
}

TEST_F(XrtNoop, OpensLoadsTheXclbinAndReportsTheMetadataFingerprint) {
    auto device = open();
    EXPECT_CONTAINS(device->name(), "xrt:0");
    EXPECT_CONTAINS(device->name(), "XRT no-op device");
    const KernelFingerprint native = native_kernel_fingerprint();
    EXPECT_EQ(device->fingerprint().text(), native.text());
    EXPECT_EQ(device->maxima().tm, native.maxima.tm);
    EXPECT_EQ(device->maxima().tc, native.maxima.tc);
    const DeviceTelemetry t = device->telemetry();
    EXPECT_FALSE(t.busy);
    EXPECT_EQ(t.commands_completed, 0u);
    EXPECT_FALSE(t.power_watts);  // the no-op device has no sensors; asking must not throw
    EXPECT_FALSE(t.temperature_celsius);
}

TEST_F(XrtNoop, ThePowerReaderAsksTheCardAndSaysWhenItHasNoSensor) {
    // fpgacnn-bench's device power source is the driver's telemetry (XRT's electrical report); the
    // no-op device has no sensors, so the source must be empty with the reason, and sampling must say so.
    auto device = open();
    const PowerSource source = find_device_power(device.get());
    EXPECT_TRUE(source.sensors.empty());
    EXPECT_CONTAINS(source.unavailable, "reports no power sensor");
    EXPECT_CONTAINS(source.unavailable, "xrt:0");
    PowerMonitor monitor(device.get(), scratch_dir("xrt-power-no-sysfs"), std::chrono::milliseconds(5));
    const PowerReport report = monitor.stop();
    EXPECT_FALSE(report.available);
    EXPECT_CONTAINS(report.reason, "reports no power sensor");
}

TEST_F(XrtNoop, TheXclbinCanComeFromTheEnvironment) {
    setenv("FPGACNN_XCLBIN", xclbin_.c_str(), 1);
    auto device = open_device("xrt:0");
    EXPECT_EQ(device->fingerprint().text(), native_kernel_fingerprint().text());
    unsetenv("FPGACNN_XCLBIN");
    EXPECT_CONTAINS(error_message([] { open_device("xrt:0"); }), "no xclbin given");
}

TEST_F(XrtNoop, BuffersLandInTheBanksWiredToTheirPorts) {
    XclbinSpec spec;
    spec.banks = {"DDR[0]", "DDR[1]", "DDR[2]"};
    spec.feature_map_bank = 2;
    spec.parameter_bank = 0;
    spec.uuid[15] = 0x22;
    const std::string path = write_test_xclbin("banks.xclbin", spec);
    auto device = open_device("xrt:0@" + path);
    DeviceBuffer arena = device->allocate(4096, BufferRole::FeatureMaps, "feature-map arena");
    const DeviceBuffer params = device->allocate(8192, BufferRole::Parameters, "parameters");
    EXPECT_EQ(xrt_buffer_bank(*device, arena), "DDR[2] (group_id 2)");
    EXPECT_EQ(xrt_buffer_bank(*device, params), "DDR[0] (group_id 0)");
    EXPECT_EQ(arena.bytes(), 4096u);
    EXPECT_NE(arena.host(), nullptr);
    EXPECT_NE(arena.host(), params.host());
    const DeviceBuffer moved = std::move(arena);  // the handle moves, the buffer stays
    EXPECT_EQ(xrt_buffer_bank(*device, moved), "DDR[2] (group_id 2)");
    // NOLINTNEXTLINE(bugprone-use-after-move): a moved-from handle is empty, and the driver says so
    EXPECT_CONTAINS(error_message([&] { xrt_buffer_bank(*device, arena); }), "handle is empty");
}

TEST_F(XrtNoop, UploadsAndRangeSyncsRoundTrip) {
    auto device = open();
    const DeviceBuffer params = device->allocate(1 << 16, BufferRole::Parameters, "parameters");
    auto* words = static_cast<int16_t*>(params.host());
    for (int i = 0; i < (1 << 15); ++i) words[i] = static_cast<int16_t>(i * 7 - 3);
    device->sync(params, SyncDirection::ToDevice, 0, params.bytes());
    device->sync(params, SyncDirection::FromDevice, 1000, 2000);
    device->sync(params, SyncDirection::ToDevice, params.bytes() - 2, 2);
    for (int i = 0; i < (1 << 15); ++i) ASSERT_EQ(words[i], static_cast<int16_t>(i * 7 - 3)) << i;
    EXPECT_CONTAINS(
        error_message([&] { device->sync(params, SyncDirection::ToDevice, params.bytes() - 2, 4); }),
        "which has 65536 bytes");
}

TEST_F(XrtNoop, OneLayerRunsThroughXrtRunAndCompletes) {
    auto device = open();
    const DeviceBuffer arena =
        device->allocate(2 * (4 * 8 * 8 + 4 * 4 * 4), BufferRole::FeatureMaps, "arena");
    const DeviceBuffer params = device->allocate(64, BufferRole::Parameters, "parameters");
    device->sync(arena, SyncDirection::ToDevice, 0, arena.bytes());
    for (int layer = 0; layer < 3; ++layer) {
        device->start(maxpool_command(layer), arena, params);
        EXPECT_TRUE(device->telemetry().busy);
        EXPECT_CONTAINS(error_message([&] { device->start(maxpool_command(9), arena, params); }),
                        "still running");
        EXPECT_CONTAINS(error_message([&] { device->sync(arena, SyncDirection::FromDevice, 0, 2); }),
                        "wait() for");
        const CommandStats stats = device->wait(std::chrono::seconds(10));
        EXPECT_EQ(stats.layer, layer);
        EXPECT_GE(stats.milliseconds, 0.0);
    }
    EXPECT_EQ(device->telemetry().commands_completed, 3u);
    EXPECT_FALSE(device->telemetry().busy);
    EXPECT_CONTAINS(error_message([&] { device->wait(std::chrono::seconds(1)); }),
                    "without a started command");
}

TEST_F(XrtNoop, TheIdentifyCommandRunsButTheNoopDeviceWritesNothing) {
    // On hardware the kernel writes its fingerprint; the no-op device completes the command without
    // running it, so read_fingerprint sees the zeroed scratch and must say it is no fpgacnn kernel.
    auto device = open();
    EXPECT_CONTAINS(error_message([&] { read_fingerprint(*device, std::chrono::seconds(5)); }),
                    "did not answer the identify command");
    EXPECT_EQ(device->telemetry().commands_completed, 1u);
}

TEST_F(XrtNoop, AWholeNetworkFrameRunsThroughTheDeviceQueue) {
    // Arena allocation, the parameter upload, one command per device layer, the input / output range
    // syncs: the DeviceQueue's whole frame on the XRT driver (values are not computed on noop).
    const auto q = std::make_shared<const QuantizedNetwork>(naive_quantize(small_test_network()));
    auto device = open();
    DeviceQueue queue(*device, q);
    const std::vector<int16_t> input = pattern_input(q->network.input, q->input_q, 0);
    for (int frame = 0; frame < 2; ++frame) {
        const std::vector<int16_t>& out = queue.run(input.data());
        EXPECT_EQ(out.size(), static_cast<std::size_t>(queue.commands().plan.output.elements));
        EXPECT_EQ(queue.last_stats().size(), queue.commands().commands.size());
    }
    EXPECT_EQ(device->telemetry().commands_completed, 2 * queue.commands().commands.size());
}

TEST_F(XrtNoop, DeviceXrtIsAValidDetectorDevice) {
    // --device xrt:... resolves to the driver (fixed point only); make_backend opens it with open_device.
    const std::string spec = "xrt:0@" + xclbin_;
    EXPECT_EQ(resolve_device(spec), spec);
    EXPECT_EQ(resolve_precision(spec, Precision::Auto), Precision::Int16);
    EXPECT_CONTAINS(error_message([&] { resolve_precision(spec, Precision::Float); }), "fixed point only");
}

TEST_F(XrtNoop, ACommandTheKernelRejectsIsRefusedAndTheNextOneRuns) {
    auto device = open();
    const DeviceBuffer arena = device->allocate(1024, BufferRole::FeatureMaps, "arena");
    const DeviceBuffer params = device->allocate(64, BufferRole::Parameters, "parameters");
    DeviceCommand bad = maxpool_command(4);
    bad.command.tile_rows = 1000;
    EXPECT_CONTAINS(error_message([&] { device->start(bad, arena, params); }), "tile rows/columns");
    DeviceCommand outside = maxpool_command(5);
    outside.command.output_offset = 100000;
    EXPECT_CONTAINS(error_message([&] { device->start(outside, arena, params); }),
                    "the plan does not match the buffer");
    device->start(maxpool_command(6), arena, params);
    EXPECT_EQ(device->wait(std::chrono::seconds(10)).layer, 6);
}

TEST_F(XrtNoop, EachComputeUnitOpensAsItsOwnDevice) {
    XclbinSpec spec;
    spec.compute_units = 2;
    spec.uuid[15] = 0x02;
    const std::string path = write_test_xclbin("two-cus.xclbin", spec);
    const std::vector<std::string> specs = xrt_compute_unit_specs("xrt:0@" + path);
    ASSERT_EQ(specs.size(), 2u);
    EXPECT_EQ(specs[1], "xrt:0/cu1@" + path);
    auto cu0 = open_device(specs[0]);
    auto cu1 = open_device(specs[1]);
    EXPECT_CONTAINS(cu1->name(), "xrt:0/cu1");
    const DeviceBuffer a0 = cu0->allocate(1024, BufferRole::FeatureMaps, "arena 0");
    const DeviceBuffer p0 = cu0->allocate(64, BufferRole::Parameters, "parameters 0");
    const DeviceBuffer a1 = cu1->allocate(1024, BufferRole::FeatureMaps, "arena 1");
    const DeviceBuffer p1 = cu1->allocate(64, BufferRole::Parameters, "parameters 1");
    cu0->start(maxpool_command(1), a0, p0);  // both in flight at once
    cu1->start(maxpool_command(2), a1, p1);
    EXPECT_EQ(cu1->wait(std::chrono::seconds(10)).layer, 2);
    EXPECT_EQ(cu0->wait(std::chrono::seconds(10)).layer, 1);
    EXPECT_CONTAINS(error_message([&] { cu0->start(maxpool_command(3), a1, p1); }),
                    "does not belong to xrt:0/cu0");
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:0/cu2@" + path); }), "has 2 compute unit(s)");
}

TEST_F(XrtNoop, AnXclbinWithoutTheKernelIsRefusedByName) {
    XclbinSpec spec;
    spec.kernel_name = "vadd";
    const std::string path = write_test_xclbin("vadd.xclbin", spec);
    const std::string m = error_message([&] { open_device("xrt:0@" + path); });
    EXPECT_CONTAINS(m, "has no compute unit of kernel fpgacnn_accel");
    EXPECT_CONTAINS(m, "it holds: vadd");
    EXPECT_CONTAINS(m, path);
    // ... and the runtime goes on: the right xclbin opens afterwards.
    EXPECT_NO_THROW(open());
}

TEST_F(XrtNoop, CorruptOrMissingXclbinsAreRefusedWithoutCrashing) {
    const std::string dir = xclbin_.substr(0, xclbin_.rfind('/'));
    std::vector<char> good;
    {
        std::ifstream in(xclbin_, std::ios::binary);
        good.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto write = [&](const std::string& name, const std::vector<char>& bytes) {
        std::ofstream(dir + "/" + name, std::ios::binary)
            .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return dir + "/" + name;
    };
    const std::string truncated = write("truncated.xclbin", {good.begin(), good.begin() + 700});
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:0@" + truncated); }), "truncated or corrupt");
    std::vector<char> garbage(4096, 'x');
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:0@" + write("garbage.xclbin", garbage)); }),
                    "no 'xclbin2' header");
    std::vector<char> bad_table = good;
    bad_table[offsetof(axlf_section_header, m_sectionOffset) + 496 - 40 + 4] =
        0x7f;  // 1st section's offset: far beyond the file
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:0@" + write("bad-table.xclbin", bad_table)); }),
                    "lies outside the file");
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:0@" + dir + "/absent.xclbin"); }), "cannot open it");
    EXPECT_NO_THROW(open());
}

TEST_F(XrtNoop, AnIncompatibleOrMissingFingerprintIsRefused) {
    KernelFingerprint other = native_kernel_fingerprint();
    other.contract_version += 1;
    XclbinSpec spec;
    spec.user_metadata = fingerprint_metadata(other);
    spec.uuid[15] = 0x31;
    std::string m =
        error_message([&] { open_device("xrt:0@" + write_test_xclbin("contract.xclbin", spec)); });
    EXPECT_CONTAINS(m, "arithmetic contract v" + std::to_string(other.contract_version));
    EXPECT_CONTAINS(m, "rebuild the bitstream");

    spec.user_metadata = "fpgacnn-fingerprint format=1 contract=1 data_bits=16 tm=32";
    spec.uuid[15] = 0x32;
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:0@" + write_test_xclbin("short.xclbin", spec)); }),
                    "the fingerprint has no 'tn'");

    spec.uuid[15] = 0x33;
    spec.user_metadata.reset();
    m = error_message(
        [&] { open_device("xrt:0@" + write_test_xclbin("none.xclbin", spec, /*with_metadata=*/false)); });
    EXPECT_CONTAINS(m, "no fpgacnn fingerprint");
    EXPECT_NO_THROW(open());
}

TEST_F(XrtNoop, OtherMaximaInTheXclbinBecomeTheDevicesMaxima) {
    // A bitstream built with other maxima: the device reports them, so DeviceQueue plans for them
    // (or refuses a plan made for others) instead of sending commands the kernel cannot run.
    KernelFingerprint other = native_kernel_fingerprint();
    other.maxima.tm = 16;
    other.maxima.tn = 8;
    XclbinSpec spec;
    spec.user_metadata = fingerprint_metadata(other);
    spec.uuid[15] = 0x41;
    auto device = open_device("xrt:0@" + write_test_xclbin("tm16.xclbin", spec));
    EXPECT_EQ(device->maxima().tm, 16);
    EXPECT_EQ(device->maxima().tn, 8);
    EXPECT_CONTAINS(device->name(), "Tm=16 Tn=8");
}

/// The native fingerprint with other parallelism and tiles.
KernelFingerprint fingerprint_with(int tm, int tn, int tr, int tc) {
    KernelFingerprint f = native_kernel_fingerprint();
    f.maxima.tm = tm;
    f.maxima.tn = tn;
    f.maxima.tr = tr;
    f.maxima.tc = tc;
    return f;
}

/// A network whose first layers have 48 x 40 outputs: more than one tile of the library's own build.
std::shared_ptr<const QuantizedNetwork> wide_quantized() {
    static const auto network = std::make_shared<const QuantizedNetwork>(naive_quantize(
        synthetic_network("wide",
                          "[net]\nwidth=48\nheight=40\nchannels=3\n\n"
                          "[convolutional]\nfilters=16\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
                          "[maxpool]\nsize=2\nstride=2\n\n"
                          "[convolutional]\nfilters=24\nsize=3\nstride=1\npad=1\nactivation=leaky\n")));
    return network;
}

TEST_F(XrtNoop, ABuildWithLargerTilesRunsAPlanMadeForIt) {
    // A bitstream built larger than this library's kernel (Tm=64 Tn=8 Tr=Tc=52, an Alveo-sized build):
    // its plan has tiles the library's own build could not take, and the driver must check them
    // against the xclbin's maxima, not refuse them at start().
    XclbinSpec spec;
    spec.user_metadata = fingerprint_metadata(fingerprint_with(64, 8, 52, 52));
    spec.uuid[15] = 0x51;
    auto device = open_device("xrt:0@" + write_test_xclbin("large-tiles.xclbin", spec));
    ASSERT_EQ(device->maxima().tr, 52);
    DeviceQueue queue(*device, wide_quantized());
    const LayerPlan& first = queue.commands().plan.layers.front();
    ASSERT_GT(first.tile_cols, kernel::native_build_maxima().tc) << "the plan must need the larger build";
    ASSERT_EQ(kernel::check_command(first.command), kernel::kCommandBadTile);
    const std::vector<int16_t> input =
        pattern_input(wide_quantized()->network.input, wide_quantized()->input_q);
    EXPECT_NO_THROW(queue.run(input.data()));
    EXPECT_EQ(queue.last_stats().size(), queue.commands().commands.size());
    EXPECT_EQ(device->telemetry().commands_completed, queue.commands().commands.size());
}

TEST_F(XrtNoop, ABuildWithSmallerTilesRefusesAPlanForLargerOnesNamingBothBuilds) {
    XclbinSpec spec;
    spec.user_metadata = fingerprint_metadata(fingerprint_with(16, 4, 8, 8));
    spec.uuid[15] = 0x52;
    auto device = open_device("xrt:0@" + write_test_xclbin("small-tiles.xclbin", spec));
    PlanOptions large;
    large.maxima = fingerprint_with(64, 8, 52, 52).maxima;
    const CommandList list = build_command_list(*wide_quantized(), large);
    const std::string m = error_message([&] { DeviceQueue queue(*device, wide_quantized(), list); });
    EXPECT_CONTAINS(m, "plan was made for a kernel built with " + maxima_text(large.maxima));
    EXPECT_CONTAINS(m, device->fingerprint().text());
    EXPECT_THROW(DeviceQueue(*device, wide_quantized(), list), DeviceError);
    // The driver's own check refuses such a command before XRT sees it.
    const DeviceBuffer arena =
        device->allocate(2 * list.plan.arena_elements, BufferRole::FeatureMaps, "arena");
    const DeviceBuffer params =
        device->allocate(2 * list.parameters.size(), BufferRole::Parameters, "params");
    EXPECT_CONTAINS(error_message([&] { device->start(list.commands.front(), arena, params); }),
                    "exceed the device's kernel build (Tr=8 Tc=8");
    EXPECT_THROW(device->start(list.commands.front(), arena, params), DeviceError);
    EXPECT_FALSE(device->telemetry().busy);
}

TEST_F(XrtNoop, BadDeviceSpecsAreRefused) {
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:0000:65:00.1@" + xclbin_); }),
                    "cannot open the XRT device");
    EXPECT_CONTAINS(error_message([&] { open_device("xrt:first@" + xclbin_); }),
                    "neither a device index nor a PCIe BDF");
}

TEST_F(XrtNoop, ListDevicesShowsTheNoopDeviceAndWhetherTheXclbinFitsButAutoSkipsIt) {
    setenv("FPGACNN_XCLBIN", xclbin_.c_str(), 1);
    std::vector<DeviceInfo> list = list_devices();
    auto xrt_line = [&]() -> DeviceInfo {
        for (const DeviceInfo& d : list) {
            if (d.spec == "xrt:0") return d;
        }
        ADD_FAILURE() << "no xrt:0 line";
        return {};
    };
    EXPECT_FALSE(xrt_line().usable) << "--device auto must not pick a device that computes nothing";
    EXPECT_CONTAINS(xrt_line().name, "no-op");
    EXPECT_CONTAINS(xrt_line().detail, "for testing only");
    EXPECT_CONTAINS(xrt_line().detail, "the xclbin fits: " + xclbin_ + ": 1 compute unit(s)");
    EXPECT_EQ(resolve_device("auto"), "cpu");

    XclbinSpec spec;
    spec.kernel_name = "vadd";
    setenv("FPGACNN_XCLBIN", write_test_xclbin("list-vadd.xclbin", spec).c_str(), 1);
    list = list_devices();
    EXPECT_FALSE(xrt_line().usable);
    EXPECT_CONTAINS(xrt_line().detail, "no compute unit of kernel fpgacnn_accel");

    unsetenv("FPGACNN_XCLBIN");
    list = list_devices();
    EXPECT_FALSE(xrt_line().usable);
    EXPECT_CONTAINS(xrt_line().detail, "no xclbin configured");
}

}  // namespace
}  // namespace fpgacnn::test

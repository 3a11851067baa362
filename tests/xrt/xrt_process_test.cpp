// XRT situations that need a process of their own, because XRT reads its environment and xrt.ini
// once per process: a command that outlives its deadline (the no-op device delays completions by
// Runtime.noop_completion_delay_us), and machines without the no-op device or without XILINX_XRT.
// Each XrtProcess test runs the matching XrtChild test in a child process with that environment;
// the XrtChild tests skip when run directly.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include "fpgacnn/device.hpp"
#include "fpgacnn/error.hpp"
#include "test_paths.hpp"
#include "xrt_test_env.hpp"

namespace fpgacnn::test {
namespace {

#define REQUIRE_CHILD() \
    if (!in_child()) GTEST_SKIP() << "runs as a child of the matching XrtProcess test"

void expect_child_passes(const std::string& test, const std::string& environment) {
    std::string output;
    const int status = run_child(test, environment, &output);
    EXPECT_EQ(status, 0) << output;
    EXPECT_NE(output.find("[  PASSED  ] 1 test."), std::string::npos) << output;
}

DeviceCommand reorg_command(int layer) {
    DeviceCommand c;
    c.layer = layer;
    c.description = "layer " + std::to_string(layer) + " (reorg)";
    c.command = kernel::LayerCommand{};
    c.command.op = kernel::kOpReorg;
    c.command.in_c = 4;
    c.command.in_h = c.command.in_w = 4;
    c.command.out_c = 16;
    c.command.out_h = c.command.out_w = 2;
    c.command.stride = 2;
    c.command.tile_cols = 2;
    c.command.output_bits = 16;
    c.command.weight_bits = 16;
    c.command.input_bits = 16;
    c.command.output_offset = 64;
    return c;
}

TEST(XrtProcess, ACommandPastItsDeadlineIsAbortedAndTheNextOneRuns) {
    const std::string ini = scratch_dir("xrt-ini") + "/xrt.ini";
    std::ofstream(ini) << "[Runtime]\nnoop_completion_delay_us=800000\n";  // 0.8 s per command
    const std::string xclbin = write_test_xclbin("slow.xclbin");
    expect_child_passes("XrtChild.CommandPastItsDeadline",
                        "XCL_EMULATION_MODE=noop XILINX_XRT=" + xrt_prefix() + " XRT_INI_PATH=" + ini +
                            " FPGACNN_XCLBIN=" + xclbin);
}

TEST(XrtChild, CommandPastItsDeadline) {
    REQUIRE_CHILD();
    auto device = open_device("xrt:0");
    const DeviceBuffer arena = device->allocate(256, BufferRole::FeatureMaps, "arena");
    const DeviceBuffer params = device->allocate(64, BufferRole::Parameters, "parameters");
    device->sync(arena, SyncDirection::ToDevice, 0, arena.bytes());
    device->start(reorg_command(7), arena, params);
    const std::string m = error_message([&] { device->wait(std::chrono::milliseconds(50)); });
    for (const char* part : {"layer 7 (reorg)", "did not finish within 50 ms", "ERT_CMD_STATE_",
                             "aborted the run", "slow.xclbin", "uuid 46434e4e-0001-4000-8000-000000000001",
                             "kernel fpgacnn_accel", "XRT no-op device", "accepts the next command"}) {
        EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in: " << m;
    }
    EXPECT_FALSE(device->telemetry().busy);
    device->start(reorg_command(8), arena, params);
    EXPECT_EQ(device->wait(std::chrono::seconds(20)).layer, 8);
    EXPECT_EQ(device->telemetry().commands_completed, 1u);
}

TEST(XrtProcess, WithoutTheNoopDeviceNoCardIsFoundAndOpeningSaysWhy) {
    const std::string xclbin = write_test_xclbin("card.xclbin");
    expect_child_passes("XrtChild.NoCard",
                        "-u XCL_EMULATION_MODE XILINX_XRT=" + xrt_prefix() + " FPGACNN_XCLBIN=" + xclbin);
}

/// list_devices() has XRT lines, all unusable, all saying `why`.
void expect_unusable_xrt_lines(const std::string& why) {
    bool reported = false;
    for (const DeviceInfo& d : list_devices()) {
        if (d.spec.rfind("xrt", 0) != 0) continue;
        EXPECT_FALSE(d.usable);
        EXPECT_NE(d.detail.find(why), std::string::npos) << d.detail;
        reported = true;
    }
    EXPECT_TRUE(reported);
}

TEST(XrtChild, NoCard) {
    REQUIRE_CHILD();
    expect_unusable_xrt_lines("none found: XRT enumerates no card");
    const std::string m = error_message([] { open_device("xrt:0"); });
    EXPECT_NE(m.find("cannot open the XRT device"), std::string::npos) << m;
    EXPECT_NE(m.find("xocl"), std::string::npos) << m;
}

TEST(XrtProcess, WithoutXilinxXrtTheListingAndOpeningExplainIt) {
    const std::string xclbin = write_test_xclbin("env.xclbin");
    expect_child_passes("XrtChild.NoXilinxXrt",
                        "-u XCL_EMULATION_MODE -u XILINX_XRT FPGACNN_XCLBIN=" + xclbin);
}

TEST(XrtChild, NoXilinxXrt) {
    REQUIRE_CHILD();
    expect_unusable_xrt_lines("XILINX_XRT is not set");
    const std::string m = error_message([] { open_device("xrt:0"); });
    EXPECT_NE(m.find("XILINX_XRT is not set"), std::string::npos) << m;
}

}  // namespace
}  // namespace fpgacnn::test

// The RTL twin as a driver sees it: the AXI-Lite register map read back, ap_ctrl_hs (done clears on
// read, idle), the interrupt status register (toggle on write) and line, the identify command, bus
// faults reported with a sentence, and deterministic cycle counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/kernel/fingerprint.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "rtl_sim_library.hpp"

namespace fpgacnn::test {
namespace {

namespace regs = kernel::regs;

struct Sim {
    const RtlSimLibrary& lib = small_rtl_library();
    fpgacnn_rtl_sim* sim;
    Sim() {
        const fpgacnn_rtl_memory_model model = test_memory_model();
        sim = lib.create(&model);
    }
    ~Sim() { lib.destroy(sim); }
    uint32_t read(uint32_t offset) {
        uint32_t value = 0xDEADBEEF;
        EXPECT_EQ(lib.read_register(sim, offset, &value), 0) << lib.last_error(sim);
        return value;
    }
    void write(uint32_t offset, uint32_t value) {
        EXPECT_EQ(lib.write_register(sim, offset, value), 0) << lib.last_error(sim);
    }
};

kernel::LayerCommand identify_at(uint32_t output_offset) {
    kernel::LayerCommand c{};
    c.op = kernel::kOpIdentify;
    c.output_offset = output_offset;
    return c;
}

TEST(RtlRegisters, TheLibraryDescribesItsBuild) {
    const RtlSimLibrary& lib = small_rtl_library();
    EXPECT_EQ(lib.abi_version, FPGACNN_RTL_SIM_ABI_VERSION);
    // The maxima this test binary is compiled with; the address width is the build's own.
    const std::string expected =
        "Tm=" + std::to_string(kernel::kTm) + " Tn=" + std::to_string(kernel::kTn) +
        " Tr=" + std::to_string(kernel::kTr) + " Tc=" + std::to_string(kernel::kTc) +
        " K<=" + std::to_string(kernel::kMaxK) + " S<=" + std::to_string(kernel::kMaxS) +
        " pairs=" + std::to_string(kernel::kInt8Pairs ? 1 : 0) +
        " word=" + std::to_string(kernel::kPortBits) + " addr=" + (lib.address64 ? "64" : "32");
    EXPECT_EQ(lib.build_text, expected);
}

TEST(RtlRegisters, EveryCommandAndPointerRegisterReadsBackWhatWasWritten) {
    Sim s;
    for (int i = 0; i < kernel::kCommandWords; ++i) s.write(regs::kCommandOffsets[i], 0x01020304u * (i + 1));
    const bool address64 = s.lib.address64;
    for (int p = 0; p < regs::kPointerCount; ++p) {
        const uint32_t at = regs::pointer_offset(static_cast<regs::Pointer>(p), address64);
        s.write(at, 0xA0000000u + 0x1000u * p);
        if (address64) s.write(at + 4, 0x50u + p);
    }
    for (int i = 0; i < kernel::kCommandWords; ++i)
        EXPECT_EQ(s.read(regs::kCommandOffsets[i]), 0x01020304u * (i + 1)) << regs::kCommandNames[i];
    for (int p = 0; p < regs::kPointerCount; ++p) {
        const uint32_t at = regs::pointer_offset(static_cast<regs::Pointer>(p), address64);
        EXPECT_EQ(s.read(at), 0xA0000000u + 0x1000u * p) << regs::kPointerNames[p];
        if (address64) {
            EXPECT_EQ(s.read(at + 4), 0x50u + p) << regs::kPointerNames[p];
        }
    }
    // Control registers: idle at reset, enables read back, an unknown offset reads 0.
    EXPECT_EQ(s.read(regs::kControl) & (regs::kApIdle | regs::kApDone | regs::kApStart), regs::kApIdle);
    s.write(regs::kGlobalInterruptEnable, 1);
    s.write(regs::kInterruptEnable, 3);
    EXPECT_EQ(s.read(regs::kGlobalInterruptEnable), 1u);
    EXPECT_EQ(s.read(regs::kInterruptEnable), 3u);
    EXPECT_EQ(s.read(regs::register_space_bytes(address64) - 4), 0u);
}

TEST(RtlRegisters, IdentifyWritesTheBuildsFingerprintAndNothingElse) {
    Sim s;
    std::vector<int16_t> arena(64, 0x5A5A);
    std::vector<int16_t> params(8, 0);
    ASSERT_EQ(s.lib.map(s.sim, kArenaBusAddress, arena.data(), 2 * arena.size()), 0);
    ASSERT_EQ(s.lib.map(s.sim, kParamsBusAddress, params.data(), 2 * params.size()), 0);
    const RtlRun run = run_rtl_command(s.lib, s.sim, identify_at(20), kArenaBusAddress, kParamsBusAddress);
    ASSERT_EQ(run.status, 0) << run.error;
    int16_t expected[kernel::kFingerprintWords];
    kernel::fingerprint_words(expected);  // this test binary is compiled with the small build's maxima
    for (int i = 0; i < 64; ++i) {
        const int16_t want = i >= 20 && i < 20 + kernel::kFingerprintWords ? expected[i - 20] : 0x5A5A;
        EXPECT_EQ(arena[i], want) << "word " << i;
    }
    EXPECT_EQ(run.counters.port[regs::kFmWrite].bursts, 1u);
    EXPECT_EQ(run.counters.port[regs::kFmWrite].bytes, 2u * kernel::kFingerprintWords);
    EXPECT_EQ(run.counters.port[regs::kFmRead].bytes, 0u);
}

TEST(RtlRegisters, DoneClearsOnReadAndTheStatusRegisterTogglesOnWrite) {
    Sim s;
    std::vector<int16_t> arena(32, 0);
    ASSERT_EQ(s.lib.map(s.sim, kArenaBusAddress, arena.data(), 2 * arena.size()), 0);
    uint32_t words[kernel::kCommandWords];
    regs::command_words(identify_at(0), words);
    for (int i = 0; i < kernel::kCommandWords; ++i) s.write(regs::kCommandOffsets[i], words[i]);
    s.write(regs::pointer_offset(regs::kFmWrite, s.lib.address64), static_cast<uint32_t>(kArenaBusAddress));
    s.write(regs::kGlobalInterruptEnable, 1);
    s.write(regs::kInterruptEnable, regs::kInterruptDone);
    EXPECT_EQ(s.lib.run(s.sim, 0), 1) << "the interrupt line is low before a call";
    s.write(regs::kControl, regs::kApStart);
    ASSERT_EQ(s.lib.run(s.sim, 100000), 0) << s.lib.last_error(s.sim);
    EXPECT_EQ(s.read(regs::kInterruptStatus), regs::kInterruptDone);
    const uint32_t control = s.read(regs::kControl);
    EXPECT_NE(control & regs::kApDone, 0u);
    EXPECT_NE(control & regs::kApIdle, 0u);
    EXPECT_EQ(control & regs::kApStart, 0u);
    EXPECT_EQ(s.read(regs::kControl) & regs::kApDone, 0u) << "ap_done clears when read";
    // ISR: writing 1 toggles the bit, so the line drops; writing 1 again raises it (toggle, not clear).
    s.write(regs::kInterruptStatus, regs::kInterruptDone);
    EXPECT_EQ(s.read(regs::kInterruptStatus), 0u);
    EXPECT_EQ(s.lib.run(s.sim, 0), 1);
    s.write(regs::kInterruptStatus, regs::kInterruptDone);
    EXPECT_EQ(s.read(regs::kInterruptStatus), regs::kInterruptDone);
    EXPECT_EQ(s.lib.run(s.sim, 0), 0);
    // With the global enable off the line stays low.
    s.write(regs::kGlobalInterruptEnable, 0);
    EXPECT_EQ(s.lib.run(s.sim, 0), 1);
}

TEST(RtlRegisters, AWriteToUnmappedMemoryIsABusFaultWithASentence) {
    Sim s;
    std::vector<int16_t> arena(64, 0);
    ASSERT_EQ(s.lib.map(s.sim, kArenaBusAddress, arena.data(), 2 * arena.size()), 0);
    // The fingerprint's 16 words at element 60 run past the 64-word arena.
    const RtlRun run = run_rtl_command(s.lib, s.sim, identify_at(60), kArenaBusAddress, kParamsBusAddress);
    EXPECT_EQ(run.status, -1);
    EXPECT_NE(run.error.find("fm_write"), std::string::npos) << run.error;
    EXPECT_NE(run.error.find("nothing is mapped"), std::string::npos) << run.error;
    EXPECT_EQ(s.lib.run(s.sim, 10), -1) << "a faulted simulation stays faulted";
}

TEST(RtlRegisters, MappedRangesMustNotOverlapAndUnmapNeedsAMapping) {
    Sim s;
    std::vector<int16_t> a(16), b(16);
    ASSERT_EQ(s.lib.map(s.sim, 0x1000, a.data(), 32), 0);
    EXPECT_EQ(s.lib.map(s.sim, 0x1010, b.data(), 32), -1);
    EXPECT_NE(std::string(s.lib.last_error(s.sim)).find("overlaps"), std::string::npos);
    EXPECT_EQ(s.lib.unmap(s.sim, 0x1010), -1);
    EXPECT_EQ(s.lib.unmap(s.sim, 0x1000), 0);
}

TEST(RtlRegisters, RefusedCommandsCauseNoTrafficButStillFinish) {
    Sim s;
    std::vector<int16_t> arena(1000, 0x5A5A);
    std::vector<int16_t> params(64, 0);
    ASSERT_EQ(s.lib.map(s.sim, kArenaBusAddress, arena.data(), 2 * arena.size()), 0);
    ASSERT_EQ(s.lib.map(s.sim, kParamsBusAddress, params.data(), 2 * params.size()), 0);
    kernel::LayerCommand good{};
    good.op = kernel::kOpMaxPool;
    good.in_c = good.out_c = 3, good.in_h = good.in_w = 8, good.out_h = good.out_w = 4;
    good.kernel_size = 2, good.stride = 2, good.tile_rows = good.tile_cols = 4;
    good.output_bits = good.weight_bits = good.input_bits = 16;
    good.output_offset = 500;
    ASSERT_EQ(kernel::check_command(good), kernel::kCommandOk);
    std::vector<kernel::LayerCommand> bad(13, good);
    bad[0].op = kernel::kOpShortcut;  // contract 7's ops with a 2x2 window: theirs is 1x1
    bad[12].op = kernel::kOpUpsample;
    bad[1].tile_rows = kernel::kTr + 1;
    bad[2].tile_cols = 0;
    bad[3].kernel_size = kernel::kMaxK + 1;
    bad[4].stride = kernel::kMaxS + 1;
    bad[5].pad = 2;
    bad[6].out_c = 4;
    bad[7].in_h = 0;
    bad[8].output_shift = 60;
    bad[9].output_bits = 12;
    bad[10].weight_bits = 8;
    bad[11].op = kernel::kOpReorg, bad[11].in_c = 6, bad[11].out_c = 24;  // 6 % 4 != 0
    // Conv: an output extent that does not follow from the window, a negative bias shift.
    kernel::LayerCommand conv = good;
    conv.op = kernel::kOpConv;
    conv.in_c = conv.out_c = 1, conv.in_h = conv.in_w = 5, conv.out_h = conv.out_w = 4;
    conv.kernel_size = 3, conv.stride = 1, conv.pad = 1;
    bad.push_back(conv);  // (5 + 2 - 3) / 1 + 1 = 5
    conv.out_h = conv.out_w = 5, conv.bias_shift = -1;
    bad.push_back(conv);
    for (std::size_t i = 0; i < bad.size(); ++i) {
        ASSERT_NE(kernel::check_command(bad[i]), kernel::kCommandOk) << i;
        const RtlRun run = run_rtl_command(s.lib, s.sim, bad[i], kArenaBusAddress, kParamsBusAddress);
        ASSERT_EQ(run.status, 0) << i << ": " << run.error;
        uint64_t bytes = 0;
        for (const fpgacnn_rtl_port_counters& port : run.counters.port) bytes += port.bytes;
        EXPECT_EQ(bytes, 0u) << "case " << i;
        EXPECT_EQ(arena, std::vector<int16_t>(1000, 0x5A5A)) << "case " << i;
    }
    // The good command does run (so the cases above were refused, not ignored).
    const RtlRun run = run_rtl_command(s.lib, s.sim, good, kArenaBusAddress, kParamsBusAddress);
    ASSERT_EQ(run.status, 0) << run.error;
    EXPECT_GT(run.counters.port[regs::kFmWrite].bytes, 0u);
}

TEST(RtlRegisters, CyclesArePositiveAndDeterministic) {
    kernel::LayerCommand c{};
    c.op = kernel::kOpMaxPool;
    c.in_c = c.out_c = 5, c.in_h = c.in_w = 13, c.out_h = c.out_w = 13;
    c.kernel_size = 2, c.stride = 1, c.pad = 0, c.tile_rows = std::min(8, kernel::kTr);
    c.tile_cols = std::min(8, kernel::kTc);
    c.output_bits = c.weight_bits = c.input_bits = 16;
    c.input_offset = 0, c.output_offset = 5 * 13 * 13;
    uint64_t cycles[2] = {0, 0};
    for (uint64_t& count : cycles) {
        Sim s;
        std::vector<int16_t> arena(2 * 5 * 13 * 13, 7);
        std::vector<int16_t> params(8, 0);
        ASSERT_EQ(s.lib.map(s.sim, kArenaBusAddress, arena.data(), 2 * arena.size()), 0);
        ASSERT_EQ(s.lib.map(s.sim, kParamsBusAddress, params.data(), 2 * params.size()), 0);
        const RtlRun run = run_rtl_command(s.lib, s.sim, c, kArenaBusAddress, kParamsBusAddress);
        ASSERT_EQ(run.status, 0) << run.error;
        count = run.counters.cycles;
    }
    EXPECT_GT(cycles[0], 0u);
    EXPECT_EQ(cycles[0], cycles[1]);
}

TEST(RtlRegisters, TheMemoryModelsLatencyAndBandwidthCostCycles) {
    kernel::LayerCommand c{};
    c.op = kernel::kOpMaxPool;
    c.in_c = c.out_c = 4, c.in_h = c.in_w = 16, c.out_h = c.out_w = 8;
    c.kernel_size = 2, c.stride = 2, c.tile_rows = std::min(8, kernel::kTr),
    c.tile_cols = std::min(8, kernel::kTc);
    c.output_bits = c.weight_bits = c.input_bits = 16;
    c.input_offset = 0, c.output_offset = 4 * 16 * 16;
    const auto cycles = [&](uint32_t read_latency, uint32_t bytes_per_cycle) {
        const RtlSimLibrary& lib = small_rtl_library();
        fpgacnn_rtl_memory_model model = test_memory_model();
        model.read_latency = read_latency;
        model.bytes_per_cycle = bytes_per_cycle;
        fpgacnn_rtl_sim* sim = lib.create(&model);
        std::vector<int16_t> arena(5 * 16 * 16, 3);
        std::vector<int16_t> params(8, 0);
        EXPECT_EQ(lib.map(sim, kArenaBusAddress, arena.data(), 2 * arena.size()), 0);
        EXPECT_EQ(lib.map(sim, kParamsBusAddress, params.data(), 2 * params.size()), 0);
        const RtlRun run = run_rtl_command(lib, sim, c, kArenaBusAddress, kParamsBusAddress);
        lib.destroy(sim);
        EXPECT_EQ(run.status, 0) << run.error;
        EXPECT_EQ(run.counters.port[regs::kFmRead].bytes, 2u * 4 * 16 * 16);
        EXPECT_EQ(run.counters.port[regs::kFmWrite].bytes, 2u * 4 * 8 * 8);
        return run.counters.cycles;
    };
    const uint64_t fast = cycles(1, 0);
    EXPECT_GT(cycles(100, 0), fast + 100);  // at least one waited-for first beat
    // One byte a cycle: every 16-bit beat takes two cycles of the shared budget.
    EXPECT_GT(cycles(1, 1), 2u * (4 * 16 * 16 + 4 * 8 * 8));
}

}  // namespace
}  // namespace fpgacnn::test

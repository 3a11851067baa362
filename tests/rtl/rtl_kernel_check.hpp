// The kernel harness's RTL path (FPGACNN_KERNEL_TEST_RTL): every command run_kernel_command gives the
// native kernel is also run on the Verilated RTL, on a copy of the arena and the parameters as they
// were before, and must leave the whole arena byte-identical to the native run (guard zones
// included); a command the native kernel refuses must cause no bus traffic and no write at all.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fpgacnn/kernel/layer_command.hpp"
#include "rtl_sim_library.hpp"

namespace fpgacnn::test {

/// Cycles of the last command the harness ran on the RTL (tests that report cycles read it).
inline uint64_t& last_rtl_cycles() {
    static uint64_t cycles = 0;
    return cycles;
}

inline void expect_rtl_matches_native(const kernel::LayerCommand& command,
                                      const std::vector<int16_t>& arena_before,
                                      const std::vector<int16_t>& native_arena,
                                      const std::vector<int16_t>& params, kernel::CommandCheck native_check) {
    const RtlSimLibrary& lib = small_rtl_library();
    std::vector<int16_t> arena = arena_before;
    std::vector<int16_t> parameters = params;
    const fpgacnn_rtl_memory_model model = test_memory_model();
    fpgacnn_rtl_sim* sim = lib.create(&model);
    ASSERT_NE(sim, nullptr);
    ASSERT_EQ(lib.map(sim, kArenaBusAddress, arena.data(), 2 * arena.size()), 0) << lib.last_error(sim);
    ASSERT_EQ(lib.map(sim, kParamsBusAddress, parameters.data(), 2 * parameters.size()), 0)
        << lib.last_error(sim);
    const RtlRun run = run_rtl_command(lib, sim, command, kArenaBusAddress, kParamsBusAddress);
    lib.destroy(sim);
    last_rtl_cycles() = run.counters.cycles;
    ASSERT_EQ(run.status, 0) << "RTL: " << run.error;
    EXPECT_GT(run.counters.cycles, 0u);
    if (native_check != kernel::kCommandOk) {
        uint64_t bytes = 0;
        for (const fpgacnn_rtl_port_counters& port : run.counters.port) bytes += port.bytes;
        EXPECT_EQ(bytes, 0u) << "RTL moved data for a command the kernel refuses";
        EXPECT_EQ(arena, arena_before) << "RTL wrote for a command the kernel refuses";
        return;
    }
    const auto* rtl_bytes = reinterpret_cast<const unsigned char*>(arena.data());
    const auto* native_bytes = reinterpret_cast<const unsigned char*>(native_arena.data());
    std::size_t first = 2 * arena.size();
    std::size_t differing = 0;
    for (std::size_t i = 0; i < 2 * arena.size(); ++i) {
        if (rtl_bytes[i] != native_bytes[i]) {
            if (differing == 0) first = i;
            ++differing;
        }
    }
    EXPECT_EQ(differing, 0u) << "RTL and native kernel differ in " << differing
                             << " arena bytes, first at byte " << first << " (output at element "
                             << command.output_offset << ")";
}

}  // namespace fpgacnn::test

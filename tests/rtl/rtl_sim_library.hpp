// The Verilated kernel build (kernels/rtl, libfpgacnn_rtl_<name>.so) loaded with dlopen, as the rtl
// device loads it, and one command run on it the way a driver runs it: registers written over
// AXI-Lite, ap_start, the clock run until the interrupt, the interrupt acknowledged.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/command_registers.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "fpgacnn_rtl_sim.h"
#include "rtl/rtl_library.hpp"

namespace fpgacnn::test {

/// The C interface of one simulation library, loaded by the rtl driver's loader.
using RtlSimLibrary = rtl::RtlLibrary;

/// The small build the tests run (CMake passes its path). FPGACNN_RTL_LIBRARY names another build of the
/// same maxima instead (e.g. one with 32-bit addresses, fpgacnn_add_rtl_sim(... ADDR64 0)).
inline const RtlSimLibrary& small_rtl_library() {
    const char* other = std::getenv("FPGACNN_RTL_LIBRARY");
    // The loader keeps every library it loaded for the process's life, so the reference stays valid.
    return *rtl::load_rtl_library(other != nullptr && *other != 0 ? other : FPGACNN_RTL_SMALL_LIBRARY);
}

/// A Zedboard-like HP port: 30 cycles to the first beat, 4 reads in flight, 8 bytes a cycle.
inline fpgacnn_rtl_memory_model test_memory_model() {
    fpgacnn_rtl_memory_model model{};
    model.read_latency = 30;
    model.write_latency = 10;
    model.outstanding_reads = 4;
    model.bytes_per_cycle = 8;
    model.clock_mhz = 150.0;
    return model;
}

inline constexpr uint64_t kArenaBusAddress = 0x10000000u;
inline constexpr uint64_t kParamsBusAddress = 0x40000000u;

struct RtlRun {
    int status = -1;  // fpgacnn_rtl_run's: 0 interrupt, 1 out of cycles, -1 bus fault
    std::string error;
    fpgacnn_rtl_counters counters{};
};

/// Writes the command and the base addresses, starts the IP and runs it to its interrupt.
inline RtlRun run_rtl_command(const RtlSimLibrary& lib, fpgacnn_rtl_sim* sim,
                              const kernel::LayerCommand& command, uint64_t arena_address,
                              uint64_t params_address, uint64_t max_cycles = 400000000u) {
    namespace regs = kernel::regs;
    RtlRun result;
    bool ok = true;
    write_command_registers(
        command, arena_address, params_address, lib.address64,
        [&](uint32_t offset, uint32_t value) { ok = ok && lib.write_register(sim, offset, value) == 0; });
    ok = ok && lib.write_register(sim, regs::kGlobalInterruptEnable, 1) == 0;
    ok = ok && lib.write_register(sim, regs::kInterruptEnable, regs::kInterruptDone) == 0;
    lib.reset_counters(sim);
    ok = ok && lib.write_register(sim, regs::kControl, regs::kApStart) == 0;
    if (!ok) {
        result.error = lib.last_error(sim);
        return result;
    }
    result.status = lib.run(sim, max_cycles);
    lib.read_counters(sim, &result.counters);
    if (result.status != 0) {
        result.error = lib.last_error(sim);
        return result;
    }
    // Acknowledge as a driver does: clear the status bit (toggle on write), read done (clear on read).
    uint32_t isr = 0, control = 0;
    lib.read_register(sim, regs::kInterruptStatus, &isr);
    lib.write_register(sim, regs::kInterruptStatus, isr);
    lib.read_register(sim, regs::kControl, &control);
    return result;
}

}  // namespace fpgacnn::test

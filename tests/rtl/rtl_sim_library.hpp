// The Verilated kernel build (kernels/rtl, libfpgacnn_rtl_<name>.so) loaded with dlopen, as the rtl
// device loads it, and one command run on it the way a driver runs it: registers written over
// AXI-Lite, ap_start, the clock run until the interrupt, the interrupt acknowledged.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/kernel/register_map.hpp"
#include "fpgacnn_rtl_sim.h"

namespace fpgacnn::test {

/// The C interface of one simulation library.
struct RtlSimLibrary {
    void* handle = nullptr;
    int (*abi_version)() = nullptr;
    const char* (*build_text)() = nullptr;
    int (*address64)() = nullptr;
    fpgacnn_rtl_sim* (*create)(const fpgacnn_rtl_memory_model*) = nullptr;
    void (*destroy)(fpgacnn_rtl_sim*) = nullptr;
    int (*map)(fpgacnn_rtl_sim*, uint64_t, void*, uint64_t) = nullptr;
    int (*unmap)(fpgacnn_rtl_sim*, uint64_t) = nullptr;
    int (*write_register)(fpgacnn_rtl_sim*, uint32_t, uint32_t) = nullptr;
    int (*read_register)(fpgacnn_rtl_sim*, uint32_t, uint32_t*) = nullptr;
    int (*run)(fpgacnn_rtl_sim*, uint64_t) = nullptr;
    void (*read_counters)(const fpgacnn_rtl_sim*, fpgacnn_rtl_counters*) = nullptr;
    void (*reset_counters)(fpgacnn_rtl_sim*) = nullptr;
    const char* (*last_error)(const fpgacnn_rtl_sim*) = nullptr;

    /// The library at `path`, loaded once per process (the handle stays open).
    static const RtlSimLibrary& load(const std::string& path) {
        static const RtlSimLibrary library = open(path);
        return library;
    }

private:
    template <class F>
    static void resolve(void* handle, const char* name, F& function) {
        function = reinterpret_cast<F>(dlsym(handle, name));
        if (function == nullptr) throw std::runtime_error(std::string("missing symbol ") + name);
    }
    static RtlSimLibrary open(const std::string& path) {
        RtlSimLibrary l;
        l.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (l.handle == nullptr) throw std::runtime_error("dlopen " + path + ": " + dlerror());
        resolve(l.handle, "fpgacnn_rtl_abi_version", l.abi_version);
        resolve(l.handle, "fpgacnn_rtl_build_text", l.build_text);
        resolve(l.handle, "fpgacnn_rtl_address64", l.address64);
        resolve(l.handle, "fpgacnn_rtl_create", l.create);
        resolve(l.handle, "fpgacnn_rtl_destroy", l.destroy);
        resolve(l.handle, "fpgacnn_rtl_map", l.map);
        resolve(l.handle, "fpgacnn_rtl_unmap", l.unmap);
        resolve(l.handle, "fpgacnn_rtl_write_register", l.write_register);
        resolve(l.handle, "fpgacnn_rtl_read_register", l.read_register);
        resolve(l.handle, "fpgacnn_rtl_run", l.run);
        resolve(l.handle, "fpgacnn_rtl_read_counters", l.read_counters);
        resolve(l.handle, "fpgacnn_rtl_reset_counters", l.reset_counters);
        resolve(l.handle, "fpgacnn_rtl_last_error", l.last_error);
        return l;
    }
};

/// The small build the tests run (CMake passes its path). FPGACNN_RTL_LIBRARY names another build of the
/// same maxima instead (e.g. one with 32-bit addresses, fpgacnn_add_rtl_sim(... ADDR64 0)).
inline const RtlSimLibrary& small_rtl_library() {
    const char* other = std::getenv("FPGACNN_RTL_LIBRARY");
    return RtlSimLibrary::load(other != nullptr && *other != 0 ? other : FPGACNN_RTL_SMALL_LIBRARY);
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
    const bool address64 = lib.address64() != 0;
    uint32_t words[kernel::kCommandWords];
    regs::command_words(command, words);
    bool ok = true;
    for (int i = 0; i < kernel::kCommandWords; ++i)
        ok = ok && lib.write_register(sim, regs::kCommandOffsets[i], words[i]) == 0;
    const uint64_t bases[regs::kPointerCount] = {arena_address, arena_address, params_address, arena_address,
                                                 arena_address};
    for (int p = 0; p < regs::kPointerCount; ++p) {
        const uint32_t at = regs::pointer_offset(static_cast<regs::Pointer>(p), address64);
        ok = ok && lib.write_register(sim, at, static_cast<uint32_t>(bases[p])) == 0;
        if (address64) ok = ok && lib.write_register(sim, at + 4, static_cast<uint32_t>(bases[p] >> 32)) == 0;
    }
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

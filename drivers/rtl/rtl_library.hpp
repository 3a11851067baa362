// A Verilated kernel build (libfpgacnn_rtl_<build>.so) loaded with dlopen: the functions of its C
// interface (kernels/rtl/sim/fpgacnn_rtl_sim.h), resolved once.
#pragma once

#include <memory>
#include <string>

#include "fpgacnn_rtl_sim.h"

namespace fpgacnn::rtl {

struct RtlLibrary {
    std::string path;
    int abi_version = 0;     // fpgacnn_rtl_abi_version(): FPGACNN_RTL_SIM_ABI_VERSION once loaded
    std::string build_text;  // fpgacnn_rtl_build_text()
    bool address64 = true;   // fpgacnn_rtl_address64()
    decltype(&fpgacnn_rtl_create) create = nullptr;
    decltype(&fpgacnn_rtl_destroy) destroy = nullptr;
    decltype(&fpgacnn_rtl_map) map = nullptr;
    decltype(&fpgacnn_rtl_unmap) unmap = nullptr;
    decltype(&fpgacnn_rtl_write_register) write_register = nullptr;
    decltype(&fpgacnn_rtl_read_register) read_register = nullptr;
    decltype(&fpgacnn_rtl_run) run = nullptr;
    decltype(&fpgacnn_rtl_read_counters) read_counters = nullptr;
    decltype(&fpgacnn_rtl_reset_counters) reset_counters = nullptr;
    decltype(&fpgacnn_rtl_last_error) last_error = nullptr;
};

/// The library at `path`, loaded once per process and never unloaded (a Verilated model's static
/// state must outlive every simulation made from it). Throws Error naming the path and the loader's
/// message, or the interface version it has instead of FPGACNN_RTL_SIM_ABI_VERSION.
std::shared_ptr<const RtlLibrary> load_rtl_library(const std::string& path);

}  // namespace fpgacnn::rtl

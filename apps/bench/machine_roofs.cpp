#include "machine_roofs.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "fpgacnn/device.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::bench {
namespace {

// The highest clock the kernel reports, else what /proc/cpuinfo says now; GHz.
double cpu_ghz() {
    std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
    double khz = 0;
    if (max_freq >> khz && khz > 0) return khz / 1e6;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("cpu MHz", 0) == 0) return std::stod(line.substr(line.find(':') + 1)) / 1e3;
    }
    return 0;
}

// SIMD operations per cycle and core (1 MAC = 2 ops), assuming two vector FMA / multiply-add
// ports: float FMA on 8 (AVX2) or 16 (AVX-512) lanes; int16 vpmaddwd on 16 / 32 MAC lanes.
int ops_per_cycle(Precision precision, std::string& isa) {
#if defined(__x86_64__) || defined(__i386__)
    const bool avx512 = __builtin_cpu_supports("avx512f");
    const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    isa = avx512 ? "AVX-512" : avx2 ? "AVX2+FMA" : "SSE";
    const int lanes = avx512 ? 16 : avx2 ? 8 : 4;
#else
    isa = "NEON";
    const int lanes = 4;
#endif
    // Fixed point runs on 16-bit lanes (8-bit layers too, so far): twice the lanes of float32.
    const int macs = is_fixed_point(precision) ? 2 * lanes : lanes;
    return 2 /*ports*/ * macs * 2 /*ops per MAC*/;
}

// Best of a few 64 MiB copies: bytes read + bytes written per second.
double copy_bandwidth_gbs() {
    const std::size_t bytes = std::size_t{64} << 20;
    std::vector<char> a(bytes, 1);
    std::vector<char> b(bytes, 0);
    double best = 0;
    for (int i = 0; i < 3; ++i) {
        const auto start = std::chrono::steady_clock::now();
        std::memcpy(b.data(), a.data(), bytes);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (s > 0) best = std::max(best, 2.0 * static_cast<double>(bytes) / s / 1e9);
        a[static_cast<std::size_t>(i)] =
            b[bytes - 1 - static_cast<std::size_t>(i)];  // keep the copies observable
    }
    return best;
}

}  // namespace

MachineRoofs machine_roofs(const Device* device, Precision precision) {
    MachineRoofs roofs;
    if (device != nullptr) {
        const KernelMaxima maxima = device->maxima();
        const PlanOptions plan;  // the planner's clock and bandwidth model
        roofs.peak_gops = 2.0 * maxima.tm * maxima.tn * plan.clock_mhz / 1e3;
        roofs.bandwidth_gbs = plan.bandwidth_gbs;
        roofs.basis = fmt::format(
            "kernel build Tm={} x Tn={} MACs/cycle at {:.0f} MHz, {:.1f} GB/s DDR (the planner's model; the "
            "emu "
            "device runs the same kernel in software, far below these roofs)",
            maxima.tm, maxima.tn, plan.clock_mhz, plan.bandwidth_gbs);
        return roofs;
    }
    std::string isa;
    const int ops = ops_per_cycle(precision, isa);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const double ghz = cpu_ghz();
    roofs.peak_gops = cores * ghz * ops;
    roofs.bandwidth_gbs = copy_bandwidth_gbs();
    roofs.basis = fmt::format(
        "{} cores x {:.2f} GHz x {} {} ops/cycle ({}, two vector ports assumed); memcpy bandwidth measured",
        cores, ghz, ops, precision_name(precision), isa);
    return roofs;
}

}  // namespace fpgacnn::bench

// Run-time choice of the int16 SIMD path. x86 paths are compiled with per-function target
// attributes, so the binary stays generic and only uses what cpuid reports. NEON is part of the
// AArch64 baseline; on 32-bit ARM it is optional (Cortex-A9 as in Zynq-7000 has it, some ARMv7
// cores do not), so the kernel's hardware capabilities decide.
#include <spdlog/spdlog.h>

#include <vector>

#if defined(__arm__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include "fpgacnn/int16_ops.hpp"

namespace fpgacnn {

const char* isa_name(Int16Isa isa) {
    switch (isa) {
        case Int16Isa::Scalar:
            return "scalar";
        case Int16Isa::Avx2:
            return "avx2";
        case Int16Isa::Avx512Vnni:
            return "avx512vnni";
        case Int16Isa::Neon:
            return "neon";
    }
    return "unknown";
}

bool int16_isa_supported(Int16Isa isa) {
    switch (isa) {
        case Int16Isa::Scalar:
            return true;
#if defined(__x86_64__) || defined(__i386__)
        case Int16Isa::Avx2:
            return __builtin_cpu_supports("avx2");
        case Int16Isa::Avx512Vnni:
            return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
#else
        case Int16Isa::Avx2:
        case Int16Isa::Avx512Vnni:
            return false;
#endif
        case Int16Isa::Neon:
#if defined(__aarch64__)
            return true;
#elif defined(__arm__)
            return (getauxval(AT_HWCAP) & HWCAP_NEON) != 0;
#else
            return false;
#endif
    }
    return false;
}

std::vector<Int16Isa> supported_int16_isas() {
    std::vector<Int16Isa> isas;
    for (Int16Isa isa : {Int16Isa::Scalar, Int16Isa::Avx2, Int16Isa::Avx512Vnni, Int16Isa::Neon}) {
        if (int16_isa_supported(isa)) isas.push_back(isa);
    }
    return isas;
}

Int16Isa best_int16_isa() {
    // Decided once per process: the fastest supported path that passes its self-test.
    static const Int16Isa best = [] {
        for (Int16Isa isa : {Int16Isa::Avx512Vnni, Int16Isa::Avx2, Int16Isa::Neon}) {
            if (!int16_isa_supported(isa)) continue;
            if (int16_isa_self_test(isa)) return isa;
            spdlog::warn(
                "int16 backend: the {} path failed its self-test against the scalar reference; "
                "not using it (please report this CPU)",
                isa_name(isa));
        }
        return Int16Isa::Scalar;
    }();
    return best;
}

}  // namespace fpgacnn

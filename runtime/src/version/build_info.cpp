// fpgacnn::version(), build_info() and version_text() (fpgacnn/version.hpp): what `--version` of every
// tool and fpgacnn-serve's server metadata report.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/version.hpp"

#ifndef FPGACNN_RTL_MODELS_BUILT
#error "FPGACNN_RTL_MODELS_BUILT is set by runtime/CMakeLists.txt"
#endif

namespace fpgacnn {
namespace detail {
std::string git_describe();  // generated at build time (cmake/git_describe.cmake)
}  // namespace detail

namespace {

// The int16 paths compiled for this architecture (runtime/src/int16: the x86 paths are compiled with
// per-function target attributes, NEON on ARM), whatever the CPU running it supports.
std::vector<Int16Isa> isa_paths_built() {
#if defined(__x86_64__) || defined(__i386__)
    return {Int16Isa::Scalar, Int16Isa::Avx2, Int16Isa::Avx512Vnni};
#elif defined(__aarch64__) || defined(__arm__)
    return {Int16Isa::Scalar, Int16Isa::Neon};
#else
    return {Int16Isa::Scalar};
#endif
}

std::string joined(const std::vector<std::string>& words) {
    return words.empty() ? std::string("none") : fmt::format("{}", fmt::join(words, " "));
}

}  // namespace

const char* version() { return FPGACNN_VERSION_STRING; }

BuildInfo build_info() {
    BuildInfo info;
    info.version = version();
    info.git_describe = detail::git_describe();
    info.contract_version = arith::kContractVersion;
    for (Int16Isa isa : isa_paths_built()) info.isa_paths_built.emplace_back(isa_name(isa));
    for (Int16Isa isa : supported_int16_isas()) info.isa_paths_supported.emplace_back(isa_name(isa));
    info.isa_path_in_use = isa_name(best_int16_isa());
    for (const DeviceDriver& driver : device_drivers()) {
        info.drivers.push_back(driver.prefix);
        if (driver.prefix == "xrt") info.xrt_driver = true;
    }
    info.rtl_models_built = FPGACNN_RTL_MODELS_BUILT != 0;
    return info;
}

std::string version_text(const std::string& tool) {
    const BuildInfo info = build_info();
    std::string text = fmt::format("{} {}\n", tool, info.version);
    if (!info.git_describe.empty()) text += fmt::format("git: {}\n", info.git_describe);
    text += fmt::format("arithmetic contract: {}\n", info.contract_version);
    text += fmt::format("int16 ISA paths built: {} (this CPU: {}; in use: {})\n",
                        joined(info.isa_paths_built), joined(info.isa_paths_supported), info.isa_path_in_use);
    text += fmt::format("drivers: {} (xrt: {}; rtl models: {})", joined(info.drivers),
                        info.xrt_driver ? "yes" : "no, built without libxrt-dev",
                        info.rtl_models_built ? "built in this tree" : "not built (FPGACNN_BUILD_RTL=OFF)");
    return text;
}

}  // namespace fpgacnn

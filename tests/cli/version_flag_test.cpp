// Every tool's --version (apps/common/parse_then_run.cpp): exit 0 on stdout, the tool's name and the
// library's version first (fpgacnn/version.hpp, from the CMake project version), then the build's
// contract version, ISA paths and drivers.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "fpgacnn/version.hpp"
#include "test_paths.hpp"

namespace t = fpgacnn::test;

namespace {

std::vector<std::pair<std::string, std::string>> tools() {
    std::vector<std::pair<std::string, std::string>> list{
        {"detect", "fpgacnn-detect"},     {"bench", "fpgacnn-bench"},
        {"quantize", "fpgacnn-quantize"}, {"plan", "fpgacnn-plan"},
        {"train", "fpgacnn-train"},       {"synth-weights", "fpgacnn-synth-weights"},
        {"camera", "fpgacnn-camera"},     {"classify", "fpgacnn-classify"}};
#ifdef FPGACNN_TEST_HAVE_SERVE
    list.emplace_back("serve", "fpgacnn-serve");
#endif
    return list;
}

}  // namespace

TEST(VersionFlag, EveryToolNamesItsVersionAndBuild) {
    EXPECT_EQ(std::string(fpgacnn::version()), FPGACNN_VERSION_STRING);
    const std::string expected_version = std::to_string(FPGACNN_VERSION_MAJOR) + "." +
                                         std::to_string(FPGACNN_VERSION_MINOR) + "." +
                                         std::to_string(FPGACNN_VERSION_PATCH);
    EXPECT_EQ(expected_version, FPGACNN_VERSION_STRING);
    const fpgacnn::BuildInfo info = fpgacnn::build_info();
    for (const auto& [folder, binary] : tools()) {
        std::string out, err;
        // No --cfg, which most tools require: --version answers before the required flags are checked.
        const int code = t::run_command(t::app_path(folder, binary) + " --version", &out, &err);
        EXPECT_EQ(code, 0) << binary << "\n" << err;
        EXPECT_EQ(out.rfind(binary + " " + expected_version + "\n", 0), 0u) << out;
        EXPECT_NE(out.find("arithmetic contract: " + std::to_string(info.contract_version)),
                  std::string::npos)
            << out;
        EXPECT_NE(out.find("int16 ISA paths built: scalar"), std::string::npos) << out;
        EXPECT_NE(out.find("drivers: cpu emu"), std::string::npos) << out;
        EXPECT_NE(out.find(info.xrt_driver ? "xrt: yes" : "xrt: no"), std::string::npos) << out;
    }
}

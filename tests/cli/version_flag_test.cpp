// Every tool's --version (apps/common/parse_then_run.cpp): exit 0 on stdout, the tool's name and the
// library's version first (fpgacnn/version.hpp, from the CMake project version), then the build's
// contract version, ISA paths and drivers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "fpgacnn/version.hpp"
#include "test_paths.hpp"

namespace t = fpgacnn::test;

namespace {

// Every fpgacnn-* executable of apps/ this build makes (tests/CMakeLists.txt lists them from the build
// system), as "path,path,...,".
std::vector<std::string> tool_files() {
    std::vector<std::string> files;
    std::stringstream list(FPGACNN_TEST_TOOL_FILES);
    for (std::string file; std::getline(list, file, ',');) {
        if (!file.empty()) files.push_back(file);
    }
    return files;
}

}  // namespace

TEST(VersionFlag, EveryToolNamesItsVersionAndBuild) {
    EXPECT_EQ(std::string(fpgacnn::version()), FPGACNN_VERSION_STRING);
    const std::string expected_version = std::to_string(FPGACNN_VERSION_MAJOR) + "." +
                                         std::to_string(FPGACNN_VERSION_MINOR) + "." +
                                         std::to_string(FPGACNN_VERSION_PATCH);
    EXPECT_EQ(expected_version, FPGACNN_VERSION_STRING);
    const fpgacnn::BuildInfo info = fpgacnn::build_info();
    const std::vector<std::string> files = tool_files();
    std::vector<std::string> names;
    for (const std::string& file : files) names.push_back(std::filesystem::path(file).filename().string());
    // The list comes from the build system: it must hold at least the tools every build makes.
    for (const char* always : {"fpgacnn-detect", "fpgacnn-bench", "fpgacnn-quantize", "fpgacnn-plan",
                               "fpgacnn-train", "fpgacnn-synth-weights"}) {
        EXPECT_NE(std::find(names.begin(), names.end(), always), names.end())
            << always << " is not in the list";
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string& binary = names[i];
        std::string out, err;
        // No --cfg, which most tools require: --version answers before the required flags are checked.
        const int code = t::run_command(files[i] + " --version", &out, &err);
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

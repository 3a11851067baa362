#include "xrt_test_env.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

std::string xrt_prefix() {
    static const std::string prefix = [] {
        std::string dir = scratch_dir("xrt-prefix");
        std::filesystem::create_directory_symlink(FPGACNN_XRT_LIBRARY_DIR, dir + "/lib");
        return dir;
    }();
    return prefix;
}

bool in_child() { return std::getenv("FPGACNN_XRT_TEST_CHILD") != nullptr; }

void use_xrt_noop_device() {
    if (in_child()) return;
    setenv("XILINX_XRT", xrt_prefix().c_str(), 1);
    setenv("XCL_EMULATION_MODE", "noop", 1);
}

std::string native_fingerprint_line() { return fingerprint_metadata(native_kernel_fingerprint()); }

std::string write_test_xclbin(const std::string& name, XclbinSpec spec, bool with_metadata) {
    if (with_metadata && !spec.user_metadata) spec.user_metadata = native_fingerprint_line();
    static const std::string dir = scratch_dir("xclbins");  // scratch_dir empties the folder on each call
    std::string path = dir + "/" + name;
    write_xclbin(path, spec);
    return path;
}

int run_child(const std::string& test, const std::string& environment, std::string* output) {
    std::error_code ec;
    const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    const std::string command =
        "env " + environment + " FPGACNN_XRT_TEST_CHILD=1 '" + self + "' --gtest_filter='" + test + "'";
    std::string out, err;
    const int status = run_command(command, &out, &err);
    *output = out + err;
    return status;
}

}  // namespace fpgacnn::test

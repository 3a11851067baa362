// Writes .xclbin files (XRT's axlf container, /usr/include/xrt/xclbin.h) describing an fpgacnn
// accelerator without a bitstream: IP_LAYOUT (one entry per compute unit), MEM_TOPOLOGY (the banks),
// CONNECTIVITY (which bank each pointer argument of each CU is wired to), EMBEDDED_METADATA (the
// kernel's arguments with their AXI-Lite offsets from register_map.hpp) and the fingerprint in
// USER_METADATA. XRT's no-op device loads such a file, so the xrt driver can be tested without a
// card; Debian's xclbinutil cannot produce one (it is broken there), hence this writer.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpgacnn::test {

struct XclbinSpec {
    /// The kernel's name in the metadata and the IP names ("<kernel>:<kernel>_<k>").
    std::string kernel_name = "fpgacnn_accel";
    int compute_units = 1;
    /// MEM_TOPOLOGY tags, e.g. {"HBM[0]", "HBM[1]"}.
    std::vector<std::string> banks = {"HBM[0]", "HBM[1]"};
    /// Bank of every CU's feature-map pointer arguments (fm_read, fm_write, fm8_read, fm8_write) and of
    /// its params argument.
    int feature_map_bank = 0;
    int parameter_bank = 1;
    /// USER_METADATA payload (e.g. xrt::fingerprint_metadata(...)); none when absent.
    std::optional<std::string> user_metadata;
    std::array<std::uint8_t, 16> uuid{0x46, 0x43, 0x4e, 0x4e, 0x00, 0x01, 0x40, 0x00,
                                      0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
    std::string platform = "xilinx_noop_test_platform";
};

/// The axlf bytes for `spec`.
std::vector<char> make_xclbin(const XclbinSpec& spec);
/// Writes make_xclbin(spec) to `path`; throws std::runtime_error when it cannot.
void write_xclbin(const std::string& path, const XclbinSpec& spec);

}  // namespace fpgacnn::test

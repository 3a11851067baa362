// One XRT card with the fpgacnn xclbin loaded, shared by every XrtDevice opened on it (one per
// compute unit): the xrt::device, the xclbin's facts (kernel, compute units, banks, fingerprint
// metadata) and the card's sensors. Also the xclbin checks that need no card (XclbinFacts), used by
// list_xrt_devices and xrt_compute_unit_specs.
#pragma once

#include <experimental/xrt_xclbin.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/drivers/xrt_device.hpp"
#include "xrt/xclbin_file.hpp"

namespace fpgacnn::xrt_driver {

/// The kernel the driver looks for in an xclbin (kernels/include/fpgacnn/kernel/accel.hpp).
inline const char* const kKernelName = "fpgacnn_accel";

/// What an xclbin file says, checked: it parses, holds kernel fpgacnn_accel, and its fingerprint
/// metadata (when present) is well formed.
struct XclbinFacts {
    std::string path;
    std::vector<char> bytes;
    xrt::xclbin xclbin;
    std::vector<std::string> compute_units;  // CU instance names, e.g. "fpgacnn_accel_1"
    std::optional<KernelFingerprint> metadata;
};

/// Reads the spec's xclbin; throws Error naming the spec and file: none configured, unreadable,
/// corrupt, no fpgacnn_accel kernel in it, malformed fingerprint.
XclbinFacts read_xclbin_facts(const XrtSpec& spec);

/// True unless XRT runs its no-op shim (XCL_EMULATION_MODE=noop), where commands complete without
/// executing anything.
bool xrt_executes_commands();

class XrtCard {
public:
    /// The card for spec.device with spec's xclbin loaded, shared with other open devices of the same
    /// card and xclbin. Throws Error naming the device and what to do.
    static std::shared_ptr<XrtCard> open(const XrtSpec& spec);

    XrtCard(const XrtSpec& spec, XclbinFacts facts);

    const xrt::device& device() const { return device_; }
    const std::string& device_name() const { return device_name_; }
    const std::string& xclbin_path() const { return facts_.path; }
    std::string uuid_text() const { return uuid_.to_string(); }
    const char* kernel_name() const { return kKernelName; }
    const std::vector<std::string>& compute_units() const { return facts_.compute_units; }
    const std::optional<KernelFingerprint>& metadata_fingerprint() const { return facts_.metadata; }
    bool executes() const { return xrt_executes_commands(); }
    /// "HBM[0] (group_id 0)" for messages.
    std::string bank_name(int group) const;
    /// xrt::kernel for "fpgacnn_accel" or "fpgacnn_accel:{cu}"; throws Error.
    xrt::kernel open_kernel(const std::string& handle_name) const;

    std::optional<double> power_watts() const;
    std::optional<double> temperature_celsius() const;

private:
    std::string spec_text_;
    XclbinFacts facts_;
    xrt::device device_;
    xrt::uuid uuid_;
    std::string device_name_;
};

}  // namespace fpgacnn::xrt_driver

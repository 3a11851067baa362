// The XRT driver (Alveo PCIe cards, Zynq UltraScale+ with zocl): opens a card through XRT's native
// C++ API, loads the accelerator's .xclbin, and runs one xrt::run per layer on one compute unit.
// Spec grammar (kXrtSpecGrammar, docs/drivers.md), e.g. xrt:0, xrt:0000:65:00.1@/opt/fpgacnn/u50.xclbin,
// xrt:0/cu1. Without @path the xclbin comes from the environment variable FPGACNN_XCLBIN. Without /cu<k>, XRT
// may pick any compute unit of the kernel for each command; with it, commands go to compute unit k only (one
// Device per CU lets a pipeline keep one frame in flight per CU). The parsing, metadata and sensor helpers
// below need no XRT and are always built; opening and listing devices exist only when the build found
// libxrt-dev (FPGACNN_HAVE_XRT).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/export.hpp"
#include "fpgacnn/kernel/register_map.hpp"

namespace fpgacnn {

/// Every --device value of the xrt driver.
inline constexpr const char* kXrtSpecGrammar = "xrt:<index|BDF>[/cu<k>][@<path.xclbin>]";

/// A parsed xrt: spec.
struct FPGACNN_API XrtSpec {
    std::string device;                    ///< "0" or a PCIe BDF such as "0000:65:00.1"
    std::optional<int> index;              ///< set when `device` is a plain index
    std::optional<int> compute_unit;       ///< the k of /cu\<k\>; absent: any compute unit
    std::string xclbin;                    ///< \@path, else $FPGACNN_XCLBIN, else empty
    bool xclbin_from_environment = false;  ///< `xclbin` came from $FPGACNN_XCLBIN (no \@path in the spec)
};

/// Parses "xrt:..." (throws Error with the grammar on malformed input; an absent xclbin is not
/// an error here, opening reports it).
FPGACNN_API XrtSpec parse_xrt_spec(const std::string& spec);
/// The spec back as text, e.g. "xrt:0/cu1@/x.xclbin" (without @ when the xclbin came from the environment).
FPGACNN_API std::string xrt_spec_text(const XrtSpec& spec);

/// The kernel fingerprint as the xclbin's USER_METADATA section carries it: one line,
///   fpgacnn-fingerprint format=1 contract=3 data_bits=16 tm=32 tn=4 tr=26 tc=26 max_k=3 max_s=2
/// (kernels/hls/vitis/Makefile adds it to every xclbin it links).
FPGACNN_API std::string fingerprint_metadata(const KernelFingerprint& fingerprint);
/// Reads that line back; nullopt when `text` is not an fpgacnn fingerprint at all; throws DeviceError
/// naming `where` when it is one but a field is missing or malformed.
FPGACNN_API std::optional<KernelFingerprint> parse_fingerprint_metadata(const std::string& text,
                                                                        const std::string& where);

/// Sensor readings from XRT's JSON device reports (xrt::info::device::electrical / thermal):
/// the board power in watts and the FPGA die temperature; nullopt when the report has no such
/// reading (absent sensor, "N/A", malformed JSON). Never throw.
FPGACNN_API std::optional<double> power_from_electrical_report(const std::string& json);
/// The FPGA die temperature in degrees Celsius from XRT's thermal report (see above).
FPGACNN_API std::optional<double> fpga_temperature_from_thermal_report(const std::string& json);

/// The marshalled arguments of one layer: the kCommandWords (22) command words in fpgacnn_accel's
/// argument order (kernel/accel.hpp; argument i = word i), then the pointers in
/// kernel::regs::Pointer order: fm_read, fm_write, params, fm8_read, fm8_write at 22..26.
inline constexpr int kXrtFmReadArgument = kernel::kCommandWords + kernel::regs::kFmRead;
/// The kernel argument of the 16-bit feature-map write pointer (see above).
inline constexpr int kXrtFmWriteArgument = kernel::kCommandWords + kernel::regs::kFmWrite;
/// The kernel argument of the parameter (weights and biases) pointer.
inline constexpr int kXrtParamsArgument = kernel::kCommandWords + kernel::regs::kParams;
/// The kernel argument of the 8-bit feature-map read pointer.
inline constexpr int kXrtFm8ReadArgument = kernel::kCommandWords + kernel::regs::kFm8Read;
/// The kernel argument of the 8-bit feature-map write pointer.
inline constexpr int kXrtFm8WriteArgument = kernel::kCommandWords + kernel::regs::kFm8Write;

#ifdef FPGACNN_HAVE_XRT
/// Opens an XRT device from an xrt: spec. Throws DeviceError naming the device, the xclbin and what to
/// do: no such device, XILINX_XRT unset, unreadable or invalid xclbin, no kernel fpgacnn_accel in
/// it, no such compute unit, missing or incompatible fingerprint.
FPGACNN_API std::unique_ptr<Device> open_xrt_device(const std::string& spec);
/// One spec per compute unit of the kernel in the spec's xclbin ("xrt:0/cu0", "xrt:0/cu1", ...),
/// read from the xclbin file without opening the device. Throws DeviceError like open_xrt_device.
FPGACNN_API std::vector<std::string> xrt_compute_unit_specs(const std::string& spec);
/// The memory bank XRT placed `buffer` in, as XRT's buffer object reports it, e.g.
/// "HBM[1] (group_id 1)". Throws Error when `device` is not an XRT device or `buffer` not its own.
FPGACNN_API std::string xrt_buffer_bank(const Device& device, const DeviceBuffer& buffer);
/// Every XRT device XRT enumerates, usable or not and why (for list_devices()). Never throws.
FPGACNN_API std::vector<DeviceInfo> list_xrt_devices();
#endif

}  // namespace fpgacnn

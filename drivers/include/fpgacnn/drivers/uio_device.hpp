// The uio device: the fpgacnn IP on a Zynq-7000 (or a ZynqMP without XRT) driven from user space.
// The IP's AXI-Lite window comes from a generic-uio node found by name under /sys/class/uio, its DMA
// buffers from one u-dma-buf device (physically contiguous CMA memory with explicit cache syncs),
// done from the UIO interrupt (or by polling the control register). Never /dev/mem.
// Everything is looked up under a root prefix so that tests run the same code against a simulated
// tree (tests/support/sim_uio); docs/drivers.md describes the deployment on a board.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// Environment variable that moves /sys, /dev and /proc under another folder (a simulated tree).
inline constexpr const char* kUioRootVariable = "FPGACNN_UIO_ROOT";

/// How the uio driver finds and drives the IP (the suffixes of a uio: --device value).
struct FPGACNN_API UioOptions {
    /// Prefix of sys/, dev/ and proc/. Empty: $FPGACNN_UIO_ROOT, else "/".
    std::string root;
    /// Register layout of the three AXI master addresses: 32 (Zynq-7000 builds, m_axi_addr64=false)
    /// or 64; 0 = the host's pointer width (32 on Zynq-7000 Linux, 64 on ZynqMP).
    int address_bits = 0;
    /// Wait for done by polling the control register instead of the UIO interrupt.
    bool poll = false;
    /// The u-dma-buf device ("udmabuf0"); empty: the first one under sys/class/u-dma-buf.
    std::string udmabuf;
    /// Deadline of the identify command run when the device opens.
    std::chrono::milliseconds identify_timeout{2000};
    /// After a command timed out: how long start() waits for the IP to go idle before refusing.
    std::chrono::milliseconds stall_grace{500};
};

/// `root` as given, else $FPGACNN_UIO_ROOT, else "/".
FPGACNN_API std::string uio_root(const std::string& root = "");

/// Opens the IP whose UIO name is `name` (the device-tree node name, e.g. "fpgacnn_accel") or the
/// node itself ("uio0"), reads its fingerprint and checks it. Throws DeviceError saying what is missing.
FPGACNN_API std::unique_ptr<Device> make_uio_device(const std::string& name, const UioOptions& options = {});

/// Every --device value of the uio driver.
inline constexpr const char* kUioSpecGrammar = "uio:NAME[:addr32|:addr64][:poll][:udmabufN]";

/// A parsed uio: spec: the IP's UIO name and the options its suffixes ask for.
struct FPGACNN_API UioSpec {
    std::string name;    ///< the IP's UIO name (sys/class/uio/uioN/name), e.g. "fpgacnn"
    UioOptions options;  ///< what the suffixes ask for; root empty (the environment decides)
};

/// Parses "uio:..." (throws Error naming the spec and the grammar when malformed).
FPGACNN_API UioSpec parse_uio_spec(const std::string& spec);
/// make_uio_device() for a --device value.
FPGACNN_API std::unique_ptr<Device> open_uio_device(const std::string& spec);

/// One line per UIO node under `root` (uio_root() when empty), usable or with the reason it is not.
FPGACNN_API std::vector<DeviceInfo> list_uio_devices(const std::string& root = "");

}  // namespace fpgacnn

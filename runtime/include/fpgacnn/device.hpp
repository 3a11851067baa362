// The device interface every accelerator driver implements (emu in-process, xrt for Alveo / MPSoC,
// uio for Zynq-7000): owning DMA buffers with explicit ownership transfers, one layer command at a
// time, bounded waits and telemetry. A failure of the device is an fpgacnn::DeviceError, a misuse of
// the interface an fpgacnn::Error; both name the device, the layer and what to check; no call
// blocks forever.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn {

/// A driver's side of one DMA buffer: where the host reads and writes it and the bus address the
/// kernel uses. Each driver derives its own (emu: the host and device copies; xrt: XRT's buffer
/// object; uio: a range of the u-dma-buf) and returns the memory in the destructor. A memory keeps
/// alive what it lives in (the mapping, XRT's device), so it stays valid if its Device goes first.
struct FPGACNN_API DeviceMemory {
    DeviceMemory() = default;
    virtual ~DeviceMemory() = default;
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;

    void* host = nullptr;              ///< the host's mapping of the buffer (bytes long)
    std::uint64_t device_address = 0;  ///< the bus address the kernel's AXI masters use
    std::size_t bytes = 0;             ///< size of the buffer
    std::string purpose;               ///< e.g. "feature-map arena"; used in messages
    /// The device that allocated it (a token the device holds), for the drivers' ownership checks.
    std::shared_ptr<const void> owner;
};

/// An owning handle to a DMA buffer, like XRT's xrt::bo: movable, not copyable, and the memory is
/// freed when the handle is destroyed or reset(). A device keeps the memory of a running command
/// alive itself, so dropping a handle while a command uses the buffer is safe: the memory goes once
/// the command is waited for (or the device closes). A handle may outlive its Device: the memory
/// and its host pointer stay valid, but no other device accepts the buffer.
class FPGACNN_API DeviceBuffer {
public:
    /// An empty handle (no buffer).
    DeviceBuffer() = default;
    /// For drivers: a handle owning `memory` (Device::allocate returns these).
    explicit DeviceBuffer(std::shared_ptr<DeviceMemory> memory) : memory_(std::move(memory)) {}
    /// Takes the buffer over; `other` is left empty.
    DeviceBuffer(DeviceBuffer&&) noexcept = default;
    /// Frees the buffer held (as reset() does), then takes `other`'s; `other` is left empty.
    DeviceBuffer& operator=(DeviceBuffer&&) noexcept = default;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    ~DeviceBuffer() = default;

    /// False after a move or reset().
    explicit operator bool() const { return memory_ != nullptr; }
    /// The host mapping (DeviceMemory::host); null when empty. Read or write it only between the
    /// matching Device::sync calls.
    void* host() const { return memory_ ? memory_->host : nullptr; }
    /// The bus address the kernel uses; 0 when empty.
    std::uint64_t device_address() const { return memory_ ? memory_->device_address : 0; }
    /// Size in bytes; 0 when empty.
    std::size_t bytes() const { return memory_ ? memory_->bytes : 0; }
    /// What the buffer is for, as given to Device::allocate ("(empty buffer)" when empty).
    std::string purpose() const { return memory_ ? memory_->purpose : std::string("(empty buffer)"); }
    /// Frees the buffer now (later, if a running command still uses it).
    void reset() { memory_.reset(); }

    /// For drivers: the memory behind the handle (null when empty).
    const std::shared_ptr<DeviceMemory>& memory() const { return memory_; }

private:
    std::shared_ptr<DeviceMemory> memory_;
};

/// What a buffer is for: drivers place each role in the memory bank wired to the kernel port that
/// reads it (XRT: the kernel argument's group_id; feature maps on the fm_read / fm_write ports,
/// parameters on the params port).
enum class BufferRole { FeatureMaps, Parameters };

/// Ownership transfer of a byte range: ToDevice after the host wrote it, FromDevice before the host
/// reads what the kernel wrote.
enum class SyncDirection { ToDevice, FromDevice };

/// One layer to run: the kernel command plus where it came from (for messages and statistics).
struct FPGACNN_API DeviceCommand {
    int layer = -1;                  ///< the network layer it runs (-1: none, e.g. the identify command)
    std::string description;         ///< e.g. "layer 12 (convolutional)"
    kernel::LayerCommand command{};  ///< what the kernel's registers receive
};

/// What one command cost. The byte and burst counts are what the command moves by the kernel's loops
/// (estimate_command), the same on every device; the time is the device's own.
struct FPGACNN_API CommandStats {
    int layer = -1;                       ///< DeviceCommand::layer of the command
    std::uint64_t fm_read_bytes = 0;      ///< feature-map bytes read (input tiles with halo)
    std::uint64_t fm_read_bursts = 0;     ///< AXI read bursts of those bytes
    std::uint64_t fm_write_bytes = 0;     ///< feature-map bytes written (output tiles)
    std::uint64_t fm_write_bursts = 0;    ///< AXI write bursts of those bytes
    std::uint64_t param_read_bytes = 0;   ///< weight and bias bytes read
    std::uint64_t param_read_bursts = 0;  ///< AXI read bursts of those bytes
    double milliseconds = 0;              ///< start to done, wall clock
    /// Kernel clock cycles from ap_start to ap_done, where the device counts them (the rtl device's
    /// simulation); 0 where it does not (hardware and emu report wall-clock time only).
    std::uint64_t cycles = 0;
};

/// A device's state and counters now (Device::telemetry), for monitoring (fpgacnn-serve's metrics).
struct FPGACNN_API DeviceTelemetry {
    bool busy = false;                          ///< a command started and not yet waited for
    std::uint32_t control_register = 0;         ///< ap_ctrl bits (kernel/register_map.hpp)
    std::uint64_t commands_completed = 0;       ///< commands waited for since the device was opened
    std::uint64_t bytes_read = 0;               ///< all AXI reads since the device was opened
    std::uint64_t bytes_written = 0;            ///< all AXI writes since the device was opened
    std::optional<double> power_watts;          ///< absent when the device has no sensor
    std::optional<double> temperature_celsius;  ///< the FPGA's die temperature; absent without a sensor
};

/// What a kernel build says about itself (kernel/fingerprint.hpp): the maxima it was synthesised
/// with, its data width and arithmetic contract version.
struct FPGACNN_API KernelFingerprint {
    int format = 0;  ///< layout of the identify answer (kernel::kFingerprintFormat)
    int contract_version =
        0;                ///< arithmetic contract version (kernel/contract.hpp); must equal this library's
    int data_bits = 0;    ///< bits of a data element on the kernel's ports (16)
    KernelMaxima maxima;  ///< the tile sizes and limits it was synthesised with
    /// e.g. "Tm=32 Tn=4 Tr=26 Tc=26 K<=3 S<=2, int16, arithmetic contract v4".
    std::string text() const;
};

/// "Tm=32 Tn=4 Tr=26 Tc=26": parallelism and tile size, as every driver's name() shows them.
FPGACNN_API std::string tile_text(const KernelMaxima& maxima);
/// tile_text() + " K<=3 S<=2": all the maxima (the first part of KernelFingerprint::text()).
FPGACNN_API std::string maxima_text(const KernelMaxima& maxima);

/// The fingerprint of the kernel source linked into this library (the emu device's build).
FPGACNN_API KernelFingerprint native_kernel_fingerprint();

/// An accelerator as the runtime drives it (open_device(), or a driver's make_* / open_* function):
/// DMA buffers, one layer command at a time, telemetry. Devices are made by the drivers
/// (fpgacnn/drivers/) and owned by the caller (std::unique_ptr); a DeviceQueue or device backend takes
/// one over. One command runs at a time: start() then wait(), from one thread. The drivers lock their
/// own state, so sync() and allocate() may be called from another thread while a command runs (the
/// DeviceQueue uploads the next frame this way); a range the running command writes must not be
/// synced (the emu device throws Error).
class FPGACNN_API Device {
public:
    virtual ~Device() = default;

    /// e.g. "emu (Tm=32 Tn=4 Tr=26 Tc=26)".
    virtual std::string name() const = 0;
    /// The kernel build on the device; plans must use the same maxima.
    virtual KernelMaxima maxima() const = 0;
    /// The whole fingerprint (drivers of real hardware read it from the device when they open it).
    virtual KernelFingerprint fingerprint() const = 0;

    /// A DMA buffer of `bytes` bytes; its contents are undefined until written and synced. Freed
    /// when the returned handle goes.
    virtual DeviceBuffer allocate(std::size_t bytes, BufferRole role, const std::string& purpose) = 0;
    /// Transfers ownership of [offset, offset + bytes) of the buffer.
    virtual void sync(const DeviceBuffer& buffer, SyncDirection direction, std::size_t offset,
                      std::size_t bytes) = 0;
    /// The host will neither read nor write [offset, offset + bytes) of `buffer` again: it was synced
    /// to the device and only the kernel reads it (the parameters, released layer by layer as they are
    /// uploaded, so the host never holds them all). A driver whose device memory is apart from the
    /// host's may free the host side of those bytes (emu does: a later sync touching them throws
    /// Error); where host and device share the memory (u-dma-buf, XRT on Zynq) there is nothing to free.
    virtual void release_host_copy(const DeviceBuffer& buffer, std::size_t offset, std::size_t bytes) {
        (void)buffer;
        (void)offset;
        (void)bytes;
    }

    /// Starts one layer on the kernel: feature maps in `arena`, weights and biases in `parameters`.
    /// Throws Error if a command is still running or the command does not fit the buffers, DeviceError
    /// if it does not fit the device's kernel build (check_command_fits).
    virtual void start(const DeviceCommand& command, const DeviceBuffer& arena,
                       const DeviceBuffer& parameters) = 0;
    /// Waits for the started command to finish; throws DeviceError naming the layer after `timeout`.
    virtual CommandStats wait(std::chrono::milliseconds timeout) = 0;

    /// The state and counters now; may be called from any thread, also while a command runs.
    virtual DeviceTelemetry telemetry() const = 0;
};

/// Runs the identify command (kernel::kOpIdentify) on `device` in a small buffer of its own and
/// decodes the answer. Throws DeviceError naming the device when it does not answer in time or the answer
/// is not an fpgacnn kernel fingerprint (another IP, a stale bitstream).
FPGACNN_API KernelFingerprint read_fingerprint(Device& device, std::chrono::milliseconds timeout);

/// Throws DeviceError naming the device, both fingerprints and the fix, when `device` cannot run what
/// this library computes: another arithmetic contract version or data width.
FPGACNN_API void require_compatible_kernel(const KernelFingerprint& device, const std::string& device_name);

/// One line of `fpgacnn-detect --list-devices`.
struct FPGACNN_API DeviceInfo {
    std::string spec;     ///< what --device takes, e.g. "xrt:0", "uio:fpgacnn", "emu", "cpu"
    std::string name;     ///< e.g. "xilinx_u250_gen3x16_xdma_shell_4_1 (0000:65:00.1)"
    bool usable = false;  ///< open_device(spec) is expected to succeed
    std::string detail;   ///< why not usable (permissions, missing driver, xclbin mismatch) or extra facts
};

/// Every device this machine offers, usable or not: each driver's list in the registry's order
/// (fpgacnn/drivers/device_registry.hpp: cpu, emu, xrt when built in, uio). Never throws; a driver
/// that fails to enumerate adds a line saying so.
FPGACNN_API std::vector<DeviceInfo> list_devices();

/// Opens a device from a --device value of a registered accelerator driver (emu, xrt, uio; not
/// cpu or auto). Throws Error listing the valid values, or the driver's Error.
FPGACNN_API std::unique_ptr<Device> open_device(const std::string& spec);

}  // namespace fpgacnn

// The device interface every accelerator driver implements (emu in-process, xrt for Alveo / MPSoC,
// uio for Zynq-7000): DMA buffers with explicit ownership transfers, one layer command at a time,
// bounded waits and telemetry. Every failure is an fpgacnn::Error naming the device, the layer and
// what to check; no call blocks forever.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn {

/// A DMA buffer: where the host reads and writes it, and the bus address the kernel uses.
/// Valid until Device::free_buffer or the device's destruction.
struct DeviceBuffer {
    int id = -1;
    void* host = nullptr;
    std::uint64_t device_address = 0;
    std::size_t bytes = 0;
    std::string purpose;  // e.g. "feature-map arena"; used in messages
};

/// What a buffer is for: drivers place each role in the memory bank wired to the kernel port that
/// reads it (XRT: the kernel argument's group_id; feature maps on the fm_read / fm_write ports,
/// parameters on the params port).
enum class BufferRole { FeatureMaps, Parameters };

/// Ownership transfer of a byte range: ToDevice after the host wrote it, FromDevice before the host
/// reads what the kernel wrote.
enum class SyncDirection { ToDevice, FromDevice };

/// One layer to run: the kernel command plus where it came from (for messages and statistics).
struct DeviceCommand {
    int layer = -1;
    std::string description;  // e.g. "layer 12 (convolutional)"
    kernel::LayerCommand command{};
};

/// What one command cost.
struct CommandStats {
    int layer = -1;
    std::uint64_t fm_read_bytes = 0;
    std::uint64_t fm_read_bursts = 0;
    std::uint64_t fm_write_bytes = 0;
    std::uint64_t fm_write_bursts = 0;
    std::uint64_t param_read_bytes = 0;
    std::uint64_t param_read_bursts = 0;
    double milliseconds = 0;  // start to done, wall clock
};

struct DeviceTelemetry {
    bool busy = false;                   // a command started and not yet waited for
    std::uint32_t control_register = 0;  // ap_ctrl bits (kernel/register_map.hpp)
    std::uint64_t commands_completed = 0;
    std::uint64_t bytes_read = 0;  // all AXI reads since the device was opened
    std::uint64_t bytes_written = 0;
    std::optional<double> power_watts;  // absent when the device has no sensor
    std::optional<double> temperature_celsius;
};

/// What a kernel build says about itself (kernel/fingerprint.hpp): the maxima it was synthesised
/// with, its data width and arithmetic contract version.
struct KernelFingerprint {
    int format = 0;
    int contract_version = 0;
    int data_bits = 0;
    KernelMaxima maxima;
    /// e.g. "Tm=32 Tn=4 Tr=26 Tc=26 K<=3 S<=2, int16, arithmetic contract v1".
    std::string text() const;
};

/// "Tm=32 Tn=4 Tr=26 Tc=26": parallelism and tile size, as every driver's name() shows them.
std::string tile_text(const KernelMaxima& maxima);
/// tile_text() + " K<=3 S<=2": all the maxima (the first part of KernelFingerprint::text()).
std::string maxima_text(const KernelMaxima& maxima);

/// The fingerprint of the kernel source linked into this library (the emu device's build).
KernelFingerprint native_kernel_fingerprint();

class Device {
public:
    virtual ~Device() = default;

    /// e.g. "emu (Tm=32 Tn=4 Tr=26 Tc=26)".
    virtual std::string name() const = 0;
    /// The kernel build on the device; plans must use the same maxima.
    virtual KernelMaxima maxima() const = 0;
    /// The whole fingerprint (drivers of real hardware read it from the device when they open it).
    virtual KernelFingerprint fingerprint() const = 0;

    /// A DMA buffer of `bytes` bytes; its contents are undefined until written and synced.
    virtual DeviceBuffer allocate(std::size_t bytes, BufferRole role, const std::string& purpose) = 0;
    virtual void free_buffer(const DeviceBuffer& buffer) = 0;
    /// Transfers ownership of [offset, offset + bytes) of the buffer.
    virtual void sync(const DeviceBuffer& buffer, SyncDirection direction, std::size_t offset,
                      std::size_t bytes) = 0;

    /// Starts one layer on the kernel: feature maps in `arena`, weights and biases in `parameters`.
    /// Throws if a command is still running or the command does not fit the buffers / kernel build.
    virtual void start(const DeviceCommand& command, const DeviceBuffer& arena,
                       const DeviceBuffer& parameters) = 0;
    /// Waits for the started command to finish; throws Error naming the layer after `timeout`.
    virtual CommandStats wait(std::chrono::milliseconds timeout) = 0;

    virtual DeviceTelemetry telemetry() const = 0;
};

/// Runs the identify command (kernel::kOpIdentify) on `device` in a small buffer of its own and
/// decodes the answer. Throws Error naming the device when it does not answer in time or the answer
/// is not an fpgacnn kernel fingerprint (another IP, a stale bitstream).
KernelFingerprint read_fingerprint(Device& device, std::chrono::milliseconds timeout);

/// Throws Error naming the device, both fingerprints and the fix, when `device` cannot run what
/// this library computes: another arithmetic contract version or data width.
void require_compatible_kernel(const KernelFingerprint& device, const std::string& device_name);

/// One line of `fpgacnn-detect --list-devices`.
struct DeviceInfo {
    std::string spec;  // what --device takes, e.g. "xrt:0", "uio:fpgacnn", "emu", "cpu"
    std::string name;  // e.g. "xilinx_u250_gen3x16_xdma_shell_4_1 (0000:65:00.1)"
    bool usable = false;
    std::string detail;  // why not usable (permissions, missing driver, xclbin mismatch) or extra facts
};

/// Every device this machine offers, usable or not: each driver's list in the registry's order
/// (fpgacnn/drivers/device_registry.hpp: cpu, emu, xrt when built in, uio). Never throws; a driver
/// that fails to enumerate adds a line saying so.
std::vector<DeviceInfo> list_devices();

/// Opens a device from a --device value of a registered accelerator driver (emu, xrt, uio; not
/// cpu or auto). Throws Error listing the valid values, or the driver's Error.
std::unique_ptr<Device> open_device(const std::string& spec);

}  // namespace fpgacnn

// The device registry: one entry per driver a --device value can name (cpu, emu, xrt when built,
// uio). open_device, list_devices, resolve_device, the error messages listing valid values and every
// tool's --device help read this table; adding a driver means adding one entry (device_registry.cpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// One driver. A spec names it when the spec is its prefix alone or starts with "prefix:".
struct FPGACNN_API DeviceDriver {
    std::string prefix;   ///< "emu"
    std::string grammar;  ///< every spec it takes, e.g. "emu[:lenient]"
    std::string help;     ///< what it is, for --device help, e.g. "the FPGA kernel in-process"
    std::string example;  ///< one spec that parses, e.g. "emu:lenient"
    /// A real accelerator: --device auto picks the first usable device of such drivers.
    bool hardware = false;
    /// Throws Error naming the spec and the grammar when the spec is malformed; opens nothing.
    std::function<void(const std::string& spec)> check;
    /// This driver's devices, usable or not and why; never throws.
    std::function<std::vector<DeviceInfo>()> list;
    /// Opens a device; empty for cpu, which runs on the host's backends rather than a Device.
    std::function<std::unique_ptr<Device>(const std::string& spec)> open;
};

/// The drivers of this build, in the order --list-devices and the help texts show them.
FPGACNN_API const std::vector<DeviceDriver>& device_drivers();

/// The driver a spec names; throws Error listing the valid values when no driver has its prefix.
/// Does not check the rest of the spec (DeviceDriver::check does).
FPGACNN_API const DeviceDriver& device_driver(const std::string& spec);

/// The device a --device value runs on: "auto" -> the first usable device of a hardware driver in
/// list_devices() order, else "cpu"; any other value is returned as is once its driver's grammar
/// accepts it. Throws Error listing the valid values for unknown devices.
FPGACNN_API std::string resolve_device(const std::string& device);

/// The --device values as one line, e.g. "auto, cpu, emu[:lenient], uio:NAME[...]" (error messages).
FPGACNN_API std::string device_values_text();
/// The --device option's help text: each value with what it is.
FPGACNN_API std::string device_option_help();

}  // namespace fpgacnn

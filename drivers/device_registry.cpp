// The table of drivers behind --device, and everything that reads it: open_device, list_devices,
// resolve_device, the valid-values lists of error messages and the tools' --device help.
#include "fpgacnn/drivers/device_registry.hpp"

#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/drivers/rtl_device.hpp"
#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

namespace {

const char* const kAutoValue = "auto";
const char* const kAutoHelp = "an accelerator if present, else cpu";

std::vector<DeviceDriver> build_drivers() {
    std::vector<DeviceDriver> drivers;
    drivers.push_back(
        {"cpu", "cpu", "the CPU backends: float, or int16 bit-identical to the kernel", "cpu", false,
         [](const std::string& spec) {
             if (spec != "cpu") throw Error("device '" + spec + "': expected cpu (it takes no options)");
         },
         [] {
             return std::vector<DeviceInfo>{
                 {"cpu", "CPU backend (float or int16, bit-identical to the kernel)", true, ""}};
         },
         nullptr});
    drivers.push_back({"emu", kEmuSpecGrammar,
                       "the FPGA kernel in-process, for testing; lenient: unsynced data reaches it as poison "
                       "instead of failing; flip, fail-after: injected faults (docs/drivers.md)",
                       "emu:lenient", false, [](const std::string& spec) { parse_emu_spec(spec); },
                       list_emu_devices, open_emu_device});
    drivers.push_back({"rtl", kRtlSpecGrammar,
                       "the kernel's RTL simulated cycle by cycle (Verilator): every command's cycles; "
                       "mem: the AXI memory model (docs/drivers.md)",
                       "rtl:small:mem=alveo", false, [](const std::string& spec) { parse_rtl_spec(spec); },
                       list_rtl_devices, open_rtl_device});
#ifdef FPGACNN_HAVE_XRT
    drivers.push_back({"xrt", kXrtSpecGrammar,
                       "Alveo, Zynq UltraScale+ through XRT; the xclbin defaults to $FPGACNN_XCLBIN",
                       "xrt:0/cu1@fpgacnn.xclbin", true,
                       [](const std::string& spec) { parse_xrt_spec(spec); }, list_xrt_devices,
                       open_xrt_device});
#endif
    drivers.push_back({"uio", kUioSpecGrammar,
                       "Zynq through generic-uio + u-dma-buf; $FPGACNN_UIO_ROOT moves /sys, /dev and /proc",
                       "uio:fpgacnn_accel:addr32:poll", true,
                       [](const std::string& spec) { parse_uio_spec(spec); },
                       [] { return list_uio_devices(); }, open_uio_device});
    return drivers;
}

bool names_driver(const std::string& spec, const DeviceDriver& driver) {
    return spec == driver.prefix || spec.rfind(driver.prefix + ":", 0) == 0;
}

const DeviceDriver* find_driver(const std::string& spec) {
    for (const DeviceDriver& driver : device_drivers()) {
        if (names_driver(spec, driver)) return &driver;
    }
    return nullptr;
}

/// The grammars of the drivers that open_device can open, e.g. "emu[:lenient], uio:NAME[...]".
std::string openable_values_text() {
    std::string text;
    for (const DeviceDriver& driver : device_drivers()) {
        if (driver.open) text += (text.empty() ? "" : ", ") + driver.grammar;
    }
    return text;
}

[[noreturn]] void throw_unknown_device(const std::string& spec, const std::string& valid_values) {
#ifndef FPGACNN_HAVE_XRT
    if (spec == "xrt" || spec.rfind("xrt:", 0) == 0) {
        throw Error("device '" + spec +
                    "': this build has no xrt driver (rebuild with libxrt-dev installed); valid values here "
                    "are " +
                    valid_values);
    }
#endif
    throw Error("unknown device '" + spec + "': valid values are " + valid_values);
}

}  // namespace

const std::vector<DeviceDriver>& device_drivers() {
    static const std::vector<DeviceDriver> drivers = build_drivers();
    return drivers;
}

const DeviceDriver& device_driver(const std::string& spec) {
    const DeviceDriver* driver = find_driver(spec);
    if (!driver) throw_unknown_device(spec, device_values_text());
    return *driver;
}

std::string resolve_device(const std::string& device) {
    if (device == kAutoValue) {
        for (const DeviceInfo& info : list_devices()) {
            const DeviceDriver* driver = find_driver(info.spec);
            if (info.usable && driver && driver->hardware) return info.spec;
        }
        return "cpu";
    }
    device_driver(device).check(device);
    return device;
}

std::string device_values_text() {
    std::string text = kAutoValue;
    for (const DeviceDriver& driver : device_drivers()) text += ", " + driver.grammar;
    return text;
}

std::string device_option_help() {
    std::string text = std::string("where layers run: ") + kAutoValue + " (" + kAutoHelp + ")";
    for (const DeviceDriver& driver : device_drivers()) {
        text += " | " + driver.grammar + " (" + driver.help;
        if (driver.example != driver.grammar) text += "; e.g. " + driver.example;
        text += ")";
    }
    return text + "; see docs/drivers.md";
}

std::vector<DeviceInfo> list_devices() {
    std::vector<DeviceInfo> devices;
    for (const DeviceDriver& driver : device_drivers()) {
        for (DeviceInfo& info : driver.list()) devices.push_back(std::move(info));
    }
    return devices;
}

std::unique_ptr<Device> open_device(const std::string& spec) {
    const DeviceDriver* driver = find_driver(spec);
    if (!driver || !driver->open) throw_unknown_device(spec, openable_values_text());
    return driver->open(spec);
}

}  // namespace fpgacnn

// open_device and list_devices: --device values to drivers. Each driver that is built in adds its
// prefix here (xrt:, uio:); emu is always present.
#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

std::unique_ptr<Device> open_device(const std::string& spec) {
    if (spec == "emu") return make_emu_device();
    if (spec == "emu:lenient") {
        EmuOptions options;
        options.strict_sync = false;
        return make_emu_device(options);
    }
    if (spec.rfind("uio:", 0) == 0) return open_uio_device(spec);
    if (spec.rfind("xrt:", 0) == 0) {
        throw Error("device '" + spec + "': this build has no " + spec.substr(0, 3) +
                    " driver yet; valid devices here are emu and emu:lenient");
    }
    throw Error("unknown device '" + spec + "': valid values are emu, emu:lenient, uio:NAME (xrt:N to come)");
}

std::vector<DeviceInfo> list_devices() {
    std::vector<DeviceInfo> devices;
    devices.push_back({"cpu", "CPU backend (float or int16, bit-identical to the kernel)", true, ""});
    devices.push_back({"emu",
                       "the accelerator's kernel in-process (" + native_kernel_fingerprint().text() + ")",
                       true, "for testing: slow"});
    for (DeviceInfo& uio : list_uio_devices()) devices.push_back(std::move(uio));
    return devices;
}

}  // namespace fpgacnn

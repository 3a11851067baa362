// open_device and list_devices: --device values to drivers. Each driver that is built in adds its
// prefix here (xrt:, uio:); emu is always present.
#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/drivers/xrt_device.hpp"
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
#ifdef FPGACNN_HAVE_XRT
    if (spec.rfind("xrt:", 0) == 0) return open_xrt_device(spec);
#else
    if (spec.rfind("xrt:", 0) == 0) {
        throw Error("device '" + spec +
                    "': this build has no xrt driver (rebuild with libxrt-dev installed); valid devices here "
                    "are emu, emu:lenient and uio:NAME");
    }
#endif
    throw Error("unknown device '" + spec + "': valid values are emu, emu:lenient" +
#ifdef FPGACNN_HAVE_XRT
                ", xrt:<index|BDF>[/cu<k>][@<path.xclbin>]" +
#endif
                std::string(", uio:NAME[:addr32|:addr64][:poll][:udmabufN]"));
}

std::vector<DeviceInfo> list_devices() {
    std::vector<DeviceInfo> devices;
    devices.push_back({"cpu", "CPU backend (float or int16, bit-identical to the kernel)", true, ""});
    devices.push_back({"emu",
                       "the accelerator's kernel in-process (" + native_kernel_fingerprint().text() + ")",
                       true, "for testing: slow"});
#ifdef FPGACNN_HAVE_XRT
    for (DeviceInfo& info : list_xrt_devices()) devices.push_back(std::move(info));
#endif
    for (DeviceInfo& uio : list_uio_devices()) devices.push_back(std::move(uio));
    return devices;
}

}  // namespace fpgacnn

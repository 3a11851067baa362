// open_device: a --device value to a driver.
#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

std::unique_ptr<Device> open_device(const std::string& spec) {
    if (spec == "emu") return make_emu_device();
    if (spec == "emu:lenient") {
        EmuOptions options;
        options.strict_sync = false;
        return make_emu_device(options);
    }
    if (spec.rfind("xrt:", 0) == 0 || spec.rfind("uio:", 0) == 0) {
        throw Error("device '" + spec + "': this build has no " + spec.substr(0, 3) +
                    " driver yet; valid devices here are emu and emu:lenient");
    }
    throw Error("unknown device '" + spec +
                "': valid values are emu, emu:lenient (xrt:N and uio:PATH to come)");
}

}  // namespace fpgacnn

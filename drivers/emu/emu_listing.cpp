// The emu driver's --device values (kEmuSpecGrammar) and its list_devices() line.
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

EmuOptions parse_emu_spec(const std::string& spec) {
    EmuOptions options;
    if (spec == "emu") return options;
    if (spec == "emu:lenient") {
        options.strict_sync = false;
        return options;
    }
    throw Error("device '" + spec + "': expected " + kEmuSpecGrammar +
                " (lenient: unsynced data reaches the kernel as poison instead of failing at start)");
}

std::unique_ptr<Device> open_emu_device(const std::string& spec) {
    return make_emu_device(parse_emu_spec(spec));
}

std::vector<DeviceInfo> list_emu_devices() {
    return {{"emu", "the accelerator's kernel in-process (" + native_kernel_fingerprint().text() + ")", true,
             "for testing: slow"}};
}

}  // namespace fpgacnn

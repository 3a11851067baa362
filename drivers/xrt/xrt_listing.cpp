// list_xrt_devices: every card XRT enumerates, with whether fpgacnn can use it and why not. Checks
// the configured xclbin (FPGACNN_XCLBIN) without loading it: listing must not reprogram a card.
#include <experimental/xrt_system.h>

#include <cstdlib>

#include "fpgacnn/error.hpp"
#include "xrt/xrt_card.hpp"

namespace fpgacnn {

namespace {

/// Usable when the configured xclbin holds a compatible fpgacnn kernel; the detail says which
/// xclbin the card holds now and what opening will load.
DeviceInfo describe(const std::string& index, const std::string& name, const xrt::device* device) {
    DeviceInfo info;
    info.spec = "xrt:" + index;
    info.name = name;
    XrtSpec spec = parse_xrt_spec(info.spec);
    if (spec.xclbin.empty()) {
        info.detail = "no xclbin configured: set FPGACNN_XCLBIN or use xrt:" + index + "@<path.xclbin>";
        return info;
    }
    try {
        const xrt_driver::XclbinFacts facts = xrt_driver::read_xclbin_facts(spec);
        if (!facts.metadata) {
            if (!xrt_driver::xrt_executes_commands()) {
                info.detail = spec.xclbin +
                              " has no fpgacnn fingerprint metadata, and the no-op device cannot "
                              "run the identify command";
                return info;
            }
        } else {
            require_compatible_kernel(*facts.metadata, info.spec);
        }
        info.usable = true;
        info.detail =
            spec.xclbin + ": " + std::to_string(facts.compute_units.size()) + " compute unit(s)" +
            (facts.metadata ? ", " + facts.metadata->text() : ", fingerprint read from the kernel at open");
        if (device) {
            const std::string loaded = device->get_xclbin_uuid().to_string();
            const std::string wanted = facts.xclbin.get_uuid().to_string();
            info.detail +=
                loaded == wanted ? " (loaded)" : " (the card holds xclbin " + loaded + "; opening loads it)";
        }
    } catch (const std::exception& e) {
        info.detail = e.what();
    }
    return info;
}

}  // namespace

std::vector<DeviceInfo> list_xrt_devices() {
    std::vector<DeviceInfo> devices;
    try {
        if (!xrt_driver::xrt_executes_commands()) {
            // The no-op shim enumerates nothing but opens any index. Never usable, so --device auto
            // does not pick a device that computes nothing; the detail still checks the xclbin.
            DeviceInfo info = describe("0",
                                       "XRT no-op device (XCL_EMULATION_MODE=noop: commands complete without "
                                       "running; for testing)",
                                       nullptr);
            info.detail = std::string("for testing only, name it explicitly (--device xrt:0); ") +
                          (info.usable ? "the xclbin fits: " : "") + info.detail;
            info.usable = false;
            devices.push_back(info);
            return devices;
        }
        const unsigned int count = xrt::system::enumerate_devices();
        for (unsigned int i = 0; i < count; ++i) {
            const std::string index = std::to_string(i);
            try {
                const xrt::device device(i);
                std::string name = device.get_info<xrt::info::device::name>();
                name += " (" + device.get_info<xrt::info::device::bdf>() + ")";
                devices.push_back(describe(index, name, &device));
            } catch (const std::exception& e) {
                devices.push_back({"xrt:" + index, "XRT device " + index, false,
                                   std::string("cannot open it (") + e.what() +
                                       "): check permissions of /dev/dri/renderD* and that the xocl / zocl "
                                       "driver is loaded"});
            }
        }
        if (count == 0) {
            devices.push_back(
                {"xrt", "XRT devices", false,
                 "none found: XRT enumerates no card (is one installed, with the xocl / zocl driver "
                 "loaded? xbutil examine)"});
        }
    } catch (const std::exception& e) {
        const std::string message = e.what();
        devices.push_back(
            {"xrt", "XRT devices", false,
             message.find("XILINX_XRT") != std::string::npos
                 ? "none found: XILINX_XRT is not set, so XRT cannot load its driver library (point it "
                   "at a prefix whose lib/ holds libxrt_core.so, see docs/drivers.md)"
                 : "none found: XRT failed to enumerate devices (" + message + ")"});
    }
    return devices;
}

}  // namespace fpgacnn

#include "xrt/xrt_card.hpp"

#include <xrt/xclbin.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "fpgacnn/error.hpp"

namespace fpgacnn::xrt_driver {

namespace {

/// XRT's own message plus what to do about the usual causes.
std::string explain_open_failure(const std::string& spec, const std::string& xrt_message) {
    if (xrt_message.find("XILINX_XRT") != std::string::npos) {
        return spec +
               ": XRT cannot load its driver library because XILINX_XRT is not set; point it at a "
               "prefix whose lib/ holds libxrt_core.so (Debian: mkdir -p /opt/xrt && ln -s "
               "/usr/lib/x86_64-linux-gnu /opt/xrt/lib && export XILINX_XRT=/opt/xrt)";
    }
    return spec + ": cannot open the XRT device (XRT: " + xrt_message +
           "); check that the card is present (xbutil examine), that the xocl / zocl driver is loaded, that "
           "you may open /dev/dri/renderD* (permissions, the 'render' group), and the index or BDF";
}

std::string cu_instance(const std::string& ip_name) {
    const auto colon = ip_name.find(':');
    return colon == std::string::npos ? ip_name : ip_name.substr(colon + 1);
}

}  // namespace

bool xrt_executes_commands() {
    const char* mode = std::getenv("XCL_EMULATION_MODE");
    return !(mode && std::strcmp(mode, "noop") == 0);
}

XclbinFacts read_xclbin_facts(const XrtSpec& spec) {
    const std::string who = xrt_spec_text(spec);
    if (spec.xclbin.empty()) {
        throw DeviceError(who + ": no xclbin given: use xrt:" + spec.device +
                          "@<path.xclbin> or set FPGACNN_XCLBIN (build one with kernels/hls/vitis/Makefile)");
    }
    XclbinFacts facts;
    facts.path = spec.xclbin;
    const XclbinFile file(spec.xclbin);
    facts.bytes = file.bytes();
    try {
        facts.xclbin = xrt::xclbin(facts.bytes);
    } catch (const std::exception& e) {
        throw DeviceError(who + ": XRT cannot read xclbin '" + spec.xclbin + "' (" + e.what() +
                          "); rebuild it with kernels/hls/vitis/Makefile");
    }
    std::vector<std::string> kernels;
    for (const xrt::xclbin::kernel& k : facts.xclbin.get_kernels()) {
        kernels.push_back(k.get_name());
        if (k.get_name() != kKernelName) continue;
        for (const xrt::xclbin::ip& cu : k.get_cus())
            facts.compute_units.push_back(cu_instance(cu.get_name()));
    }
    if (facts.compute_units.empty()) {
        std::string found;
        for (const std::string& k : kernels) found += (found.empty() ? "" : ", ") + k;
        throw DeviceError(who + ": xclbin '" + spec.xclbin + "' has no compute unit of kernel " +
                          kKernelName + " (it holds: " + (found.empty() ? "no kernels" : found) +
                          "); load the fpgacnn accelerator's xclbin (kernels/hls/vitis/Makefile)");
    }
    if (const std::optional<std::string> meta = file.section(USER_METADATA)) {
        facts.metadata = parse_fingerprint_metadata(*meta, who + ": xclbin '" + spec.xclbin + "'");
    }
    return facts;
}

std::shared_ptr<XrtCard> XrtCard::open(const XrtSpec& spec) {
    static std::mutex mutex;
    static std::map<std::string, std::weak_ptr<XrtCard>> cards;
    XclbinFacts facts = read_xclbin_facts(spec);
    const std::string key = spec.device + "@" + spec.xclbin;
    std::lock_guard<std::mutex> lock(mutex);
    if (std::shared_ptr<XrtCard> card = cards[key].lock()) return card;
    auto card = std::make_shared<XrtCard>(spec, std::move(facts));
    cards[key] = card;
    return card;
}

XrtCard::XrtCard(const XrtSpec& spec, XclbinFacts facts)
    : spec_text_(xrt_spec_text(spec)), facts_(std::move(facts)) {
    try {
        device_ = spec.index ? xrt::device(static_cast<unsigned int>(*spec.index)) : xrt::device(spec.device);
    } catch (const std::exception& e) {
        throw DeviceError(explain_open_failure(spec_text_, e.what()));
    }
    try {
        device_name_ = device_.get_info<xrt::info::device::name>();
    } catch (const std::exception&) {  // the no-op shim answers no queries
        device_name_ = xrt_executes_commands() ? "XRT device " + spec.device : "XRT no-op device";
    }
    try {
        uuid_ = device_.load_xclbin(facts_.xclbin);
    } catch (const std::exception& e) {
        throw DeviceError(
            spec_text_ + " (" + device_name_ + "): loading xclbin " + facts_.path +
            " failed (XRT: " + e.what() + "); it was built for " + facts_.xclbin.get_xsa_name() +
            ": check it matches the card's shell (xbutil examine) and that no other process holds the card");
    }
}

std::string XrtCard::bank_name(int group) const {
    for (const xrt::xclbin::mem& m : facts_.xclbin.get_mems()) {
        if (m.get_index() == group) return m.get_tag() + " (group_id " + std::to_string(group) + ")";
    }
    return "group_id " + std::to_string(group);
}

xrt::kernel XrtCard::open_kernel(const std::string& handle_name) const {
    try {
        return xrt::kernel(device_, uuid_, handle_name);
    } catch (const std::exception& e) {
        throw DeviceError(spec_text_ + " (" + device_name_ + "), xclbin " + facts_.path +
                          ": cannot open kernel " + handle_name + " (XRT: " + e.what() +
                          "); another process or device object may hold its compute units exclusively");
    }
}

std::optional<double> XrtCard::power_watts() const {
    try {
        return power_from_electrical_report(device_.get_info<xrt::info::device::electrical>());
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> XrtCard::temperature_celsius() const {
    try {
        return fpga_temperature_from_thermal_report(device_.get_info<xrt::info::device::thermal>());
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace fpgacnn::xrt_driver

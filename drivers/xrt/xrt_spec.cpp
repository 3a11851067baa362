// xrt: specs (kXrtSpecGrammar) to XrtSpec and back. No XRT needed.
#include <cctype>
#include <cstdlib>

#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

namespace {

const std::string kGrammar = std::string("expected ") + kXrtSpecGrammar +
                             ", e.g. xrt:0, xrt:0000:65:00.1@fpgacnn.xclbin, xrt:0/cu1 (the xclbin comes "
                             "from FPGACNN_XCLBIN when no @path is given)";

bool all_digits(const std::string& s) {
    if (s.empty() || s.size() > 6) return false;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

/// A PCIe address: [domain:]bus:device.function in hex, e.g. 0000:65:00.1 or 65:00.1.
bool looks_like_bdf(const std::string& s) {
    const auto dot = s.rfind('.');
    const auto colon = s.find(':');
    if (dot == std::string::npos || colon == std::string::npos || dot < colon) return false;
    for (char c : s) {
        if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
    }
    return true;
}

}  // namespace

XrtSpec parse_xrt_spec(const std::string& spec) {
    const std::string prefix = "xrt:";
    if (spec.rfind(prefix, 0) != 0) throw Error("device '" + spec + "': " + kGrammar);
    std::string rest = spec.substr(prefix.size());
    XrtSpec parsed;
    const auto at = rest.find('@');
    if (at != std::string::npos) {
        parsed.xclbin = rest.substr(at + 1);
        rest = rest.substr(0, at);
        if (parsed.xclbin.empty())
            throw Error("device '" + spec + "': empty xclbin path after '@'; " + kGrammar);
    } else if (const char* env = std::getenv("FPGACNN_XCLBIN"); env && *env) {
        parsed.xclbin = env;
        parsed.xclbin_from_environment = true;
    }
    const auto slash = rest.find('/');
    if (slash != std::string::npos) {
        const std::string cu = rest.substr(slash + 1);
        if (cu.size() < 3 || cu.compare(0, 2, "cu") != 0 || !all_digits(cu.substr(2))) {
            throw Error("device '" + spec + "': '/" + cu + "' is not a compute unit (use /cu0, /cu1, ...); " +
                        kGrammar);
        }
        parsed.compute_unit = std::atoi(cu.c_str() + 2);
        rest = rest.substr(0, slash);
    }
    if (all_digits(rest)) {
        parsed.index = std::atoi(rest.c_str());
    } else if (!looks_like_bdf(rest)) {
        throw Error("device '" + spec + "': '" + rest + "' is neither a device index nor a PCIe BDF; " +
                    kGrammar);
    }
    parsed.device = rest;
    return parsed;
}

std::string xrt_spec_text(const XrtSpec& spec) {
    std::string text = "xrt:" + spec.device;
    if (spec.compute_unit) text += "/cu" + std::to_string(*spec.compute_unit);
    if (!spec.xclbin.empty() && !spec.xclbin_from_environment) text += "@" + spec.xclbin;
    return text;
}

}  // namespace fpgacnn

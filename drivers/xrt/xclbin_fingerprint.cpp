// The fingerprint line an xclbin carries in its USER_METADATA section, written by the Vitis
// Makefile (and the tests' xclbin writer) and read by the xrt driver. A plain key=value line so a
// shell printf can produce it; the identify command (kernel/fingerprint.hpp) says the same from the
// running kernel.
#include <map>
#include <sstream>

#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

namespace {

const char* const kTag = "fpgacnn-fingerprint";

[[noreturn]] void malformed(const std::string& where, const std::string& item, const char* expected) {
    throw DeviceError(where + ": fingerprint field '" + item + "' is malformed (expected " + expected +
                      "); rebuild the xclbin with kernels/hls/vitis/Makefile");
}

}  // namespace

std::string fingerprint_metadata(const KernelFingerprint& f) {
    std::ostringstream s;
    s << kTag << " format=" << f.format << " contract=" << f.contract_version << " data_bits=" << f.data_bits
      << " tm=" << f.maxima.tm << " tn=" << f.maxima.tn << " tr=" << f.maxima.tr << " tc=" << f.maxima.tc
      << " max_k=" << f.maxima.max_kernel << " max_s=" << f.maxima.max_stride
      << " int8_pairs=" << (f.maxima.int8_pairs ? 1 : 0) << " port_bits=" << f.maxima.port_bits
      << " upsample_shortcut=" << (f.maxima.upsample_shortcut ? 1 : 0) << "\n";
    return s.str();
}

std::optional<KernelFingerprint> parse_fingerprint_metadata(const std::string& text,
                                                            const std::string& where) {
    std::istringstream in(text);
    std::string tag;
    if (!(in >> tag) || tag != kTag) return std::nullopt;
    std::map<std::string, int> fields;
    std::string item;
    while (in >> item) {
        const auto eq = item.find('=');
        if (eq == std::string::npos || eq == 0) {
            malformed(where, item, "key=value");
        }
        try {
            std::size_t used = 0;
            const int value = std::stoi(item.substr(eq + 1), &used);
            if (used != item.size() - eq - 1) throw std::invalid_argument(item);
            fields[item.substr(0, eq)] = value;
        } catch (const std::exception&) {
            malformed(where, item, "an integer value");
        }
    }
    auto take = [&](const char* key) {
        const auto it = fields.find(key);
        if (it == fields.end()) {
            throw DeviceError(where + ": the fingerprint has no '" + key + "' (" + text +
                              "); rebuild the xclbin with kernels/hls/vitis/Makefile");
        }
        return it->second;
    };
    KernelFingerprint f;
    f.format = take("format");
    f.contract_version = take("contract");
    f.data_bits = take("data_bits");
    f.maxima.tm = take("tm");
    f.maxima.tn = take("tn");
    f.maxima.tr = take("tr");
    f.maxima.tc = take("tc");
    f.maxima.max_kernel = take("max_k");
    f.maxima.max_stride = take("max_s");
    f.maxima.int8_pairs = take("int8_pairs") != 0;
    // Absent from xclbins built before the HLS top had wide ports: those have 16-bit word ports.
    const auto port_bits = fields.find("port_bits");
    f.maxima.port_bits = port_bits != fields.end() ? port_bits->second : 16;
    // Absent from xclbins built before contract 7: those have no upsample / shortcut ops.
    const auto upsample_shortcut = fields.find("upsample_shortcut");
    f.maxima.upsample_shortcut = upsample_shortcut != fields.end() && upsample_shortcut->second != 0;
    return f;
}

}  // namespace fpgacnn

// uio: specs (kUioSpecGrammar) to the IP's name and UioOptions. Opens nothing.
#include <sstream>

#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

UioSpec parse_uio_spec(const std::string& spec) {
    const std::string prefix = "uio:";
    if (spec.rfind(prefix, 0) != 0)
        throw Error("device '" + spec + "': expected " + std::string(kUioSpecGrammar));
    std::vector<std::string> parts;
    std::string part;
    std::istringstream fields(spec.substr(prefix.size()));
    while (std::getline(fields, part, ':')) parts.push_back(part);
    if (parts.empty() || parts.front().empty()) {
        throw Error("device '" + spec +
                    "': name the IP's UIO device, e.g. uio:fpgacnn_accel or uio:uio0 "
                    "(fpgacnn-detect --list-devices shows them)");
    }
    UioSpec parsed;
    parsed.name = parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i) {
        if (parts[i] == "addr32" || parts[i] == "addr64") {
            parsed.options.address_bits = parts[i] == "addr32" ? 32 : 64;
        } else if (parts[i] == "poll") {
            parsed.options.poll = true;
        } else if (parts[i].rfind("udmabuf", 0) == 0) {
            // The driver opens /dev/<this> and reads /sys/class/u-dma-buf/<this>/: one file name.
            if (parts[i].find('/') != std::string::npos) {
                throw Error(
                    "device '" + spec + "': '" + parts[i] +
                    "' is not a u-dma-buf device name (a name under /dev such as udmabuf0, without '/')");
            }
            parsed.options.udmabuf = parts[i];
        } else {
            throw Error("device '" + spec + "': unknown option '" + parts[i] +
                        "' (valid: addr32, addr64, poll, udmabufN; grammar " + kUioSpecGrammar + ")");
        }
    }
    return parsed;
}

std::unique_ptr<Device> open_uio_device(const std::string& spec) {
    const UioSpec parsed = parse_uio_spec(spec);
    return make_uio_device(parsed.name, parsed.options);
}

}  // namespace fpgacnn

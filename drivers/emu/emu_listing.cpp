// The emu driver's --device values (kEmuSpecGrammar) and its list_devices() line.
#include <cstdlib>
#include <limits>
#include <vector>

#include "common/spec_fields.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

namespace {

const char* const kOptionsHelp =
    " (lenient: unsynced data reaches the kernel as poison instead of failing at start; "
    "flip=LAYER/CHANNEL/TILE/BIT: flip that bit of the first value of that output tile and channel "
    "every time the layer runs; fail-after=N: a DeviceError at every start after N commands)";

[[noreturn]] void malformed(const std::string& spec, const std::string& problem) {
    throw Error("device '" + spec + "': " + problem + "; expected " + kEmuSpecGrammar + kOptionsHelp);
}

/// A decimal number in [0, max]: digits only (no sign, no spaces, no suffix).
long long parse_count(const std::string& spec, const std::string& what, const std::string& text,
                      long long max) {
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) {
        malformed(spec, what + " must be a number, not '" + text + "'");
    }
    const long long value = std::strtoll(text.c_str(), nullptr, 10);
    if (value > max) malformed(spec, what + " " + text + " is above " + std::to_string(max));
    return value;
}

EmuBitFlip parse_flip(const std::string& spec, const std::string& value) {
    const std::vector<std::string> fields = split_spec_fields(value, '/');
    if (fields.size() != 4) malformed(spec, "flip= takes LAYER/CHANNEL/TILE/BIT, got '" + value + "'");
    const long long int_max = std::numeric_limits<int>::max();
    EmuBitFlip flip;
    flip.layer = static_cast<int>(parse_count(spec, "the flip's layer", fields[0], int_max));
    flip.channel = static_cast<int>(parse_count(spec, "the flip's channel", fields[1], int_max));
    flip.tile = static_cast<int>(parse_count(spec, "the flip's tile", fields[2], int_max));
    flip.bit = static_cast<int>(parse_count(spec, "the flip's bit", fields[3], 15));
    return flip;
}

}  // namespace

EmuOptions parse_emu_spec(const std::string& spec) {
    if (spec.rfind("emu", 0) != 0 || (spec.size() > 3 && spec[3] != ':'))
        malformed(spec, "not an emu device");
    EmuOptions options;
    bool lenient = false;
    if (spec.size() == 3) return options;
    if (spec.size() == 4) malformed(spec, "nothing after 'emu:'");
    for (const std::string& option : split_spec_fields(spec.substr(4), ':')) {
        const std::size_t equals = option.find('=');
        const std::string name = option.substr(0, equals);
        const std::string value = equals == std::string::npos ? "" : option.substr(equals + 1);
        const bool has_value = equals != std::string::npos;
        if (name == "lenient" && !has_value && !lenient) {
            lenient = true;
            options.strict_sync = false;
        } else if (name == "flip" && has_value && !options.bit_flip) {
            options.bit_flip = parse_flip(spec, value);
        } else if (name == "fail-after" && has_value && options.fail_after_commands < 0) {
            options.fail_after_commands =
                parse_count(spec, "fail-after", value, std::numeric_limits<long long>::max() / 2);
        } else {
            malformed(spec, "'" + option + "' is not an option (or is given twice)");
        }
    }
    return options;
}

std::string emu_spec_text(const EmuOptions& options) {
    std::string spec = "emu";
    if (!options.strict_sync) spec += ":lenient";
    if (options.bit_flip) {
        const EmuBitFlip& flip = *options.bit_flip;
        spec += ":flip=" + std::to_string(flip.layer) + "/" + std::to_string(flip.channel) + "/" +
                std::to_string(flip.tile) + "/" + std::to_string(flip.bit);
    }
    if (options.fail_after_commands >= 0)
        spec += ":fail-after=" + std::to_string(options.fail_after_commands);
    return spec;
}

std::unique_ptr<Device> open_emu_device(const std::string& spec) {
    return make_emu_device(parse_emu_spec(spec));
}

std::vector<DeviceInfo> list_emu_devices() {
    return {{"emu", "the accelerator's kernel in-process (" + native_kernel_fingerprint().text() + ")", true,
             "for testing: slow"}};
}

}  // namespace fpgacnn

// libFuzzer harness: the --device grammar. The input is one --device value: its bytes up to the first
// NUL, as a command-line argument or the C string in an error message can hold. It goes
// through the device registry (device_driver, the driver's check, resolve_device) and through every
// driver's own spec parser (parse_emu_spec, parse_uio_spec, parse_xrt_spec), which open nothing.
// Besides "no crash, no UB, only fpgacnn::Error", it checks the registry's contracts:
// - a refusal names the value: the message holds "device '<value>'";
// - the driver found is the one whose prefix the value names ("emu" or "emu:...");
// - an accepted emu spec survives emu_spec_text + parse_emu_spec unchanged;
// - a value the driver accepts resolves to itself ("auto" to "cpu": no devices under the empty root);
// - an accepted uio spec names its u-dma-buf by one path component (the driver opens
//   /dev/<udmabuf> and reads /sys/class/u-dma-buf/<udmabuf>/; the IP's name is only compared);
// - an accepted xrt spec survives xrt_spec_text + parse_xrt_spec unchanged.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/drivers/emu_device.hpp"
#include "fpgacnn/drivers/uio_device.hpp"
#include "fpgacnn/drivers/xrt_device.hpp"
#include "fpgacnn/error.hpp"
#include "fuzz_support.hpp"

namespace {

void expect(bool holds) {
    if (!holds) __builtin_trap();
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

/// A refusal must quote the value it refuses.
void expect_names_value(const fpgacnn::Error& error, const std::string& value) {
    expect(std::string(error.what()).find("device '" + value + "'") != std::string::npos);
}

/// One file name: the driver joins it to a folder, so no '/', not "." or "..".
bool is_one_path_component(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos;
}

void check_registry(const std::string& value) {
    try {
        const fpgacnn::DeviceDriver& driver = fpgacnn::device_driver(value);
        expect(value == driver.prefix || starts_with(value, driver.prefix + ":"));
    } catch (const fpgacnn::Error& error) {
        expect_names_value(error, value);
    }
    try {
        const std::string resolved = fpgacnn::resolve_device(value);
        expect(resolved == (value == "auto" ? "cpu" : value));
    } catch (const fpgacnn::Error& error) {
        expect_names_value(error, value);
    }
}

void check_emu(const std::string& value) {
    try {
        const fpgacnn::EmuOptions options = fpgacnn::parse_emu_spec(value);
        // Options come in any order, so compare in the canonical spelling: it must parse back to itself.
        const std::string canonical = fpgacnn::emu_spec_text(options);
        expect(starts_with(value, "emu"));
        expect(fpgacnn::emu_spec_text(fpgacnn::parse_emu_spec(canonical)) == canonical);
        expect(options.strict_sync == (value.find(":lenient") == std::string::npos));
    } catch (const fpgacnn::Error& error) {
        expect_names_value(error, value);
    }
}

void check_uio(const std::string& value) {
    try {
        const fpgacnn::UioSpec spec = fpgacnn::parse_uio_spec(value);
        expect(starts_with(value, "uio:" + spec.name));
        expect(!spec.name.empty() && spec.name.find(':') == std::string::npos);
        expect(spec.options.udmabuf.empty() ||
               (starts_with(spec.options.udmabuf, "udmabuf") && is_one_path_component(spec.options.udmabuf)));
    } catch (const fpgacnn::Error& error) {
        expect_names_value(error, value);
    }
}

void check_xrt(const std::string& value) {
    try {
        const fpgacnn::XrtSpec spec = fpgacnn::parse_xrt_spec(value);
        expect(!spec.xclbin_from_environment);  // FPGACNN_XCLBIN is unset
        const fpgacnn::XrtSpec again = fpgacnn::parse_xrt_spec(fpgacnn::xrt_spec_text(spec));
        expect(again.device == spec.device && again.index == spec.index &&
               again.compute_unit == spec.compute_unit && again.xclbin == spec.xclbin);
    } catch (const fpgacnn::Error& error) {
        expect_names_value(error, value);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fpgacnn::fuzz::setup_process();
    // Deterministic and hardware-free: no xclbin from the environment, and "auto" lists the UIO
    // devices of an empty root rather than this machine's /sys.
    ::unsetenv("FPGACNN_XCLBIN");
    ::setenv("FPGACNN_UIO_ROOT", "/nonexistent/fpgacnn-fuzz-root", 1);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string value(reinterpret_cast<const char*>(data),
                            ::strnlen(reinterpret_cast<const char*>(data), size));
    check_registry(value);
    check_emu(value);
    check_uio(value);
    check_xrt(value);
    return 0;
}

// Maps --device and --precision values to a backend. "auto" prefers a real accelerator when one is
// present and usable (list_devices(): XRT cards, UIO kernels), otherwise the CPU.
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "pipeline/fallback_backend.hpp"
#include "pipeline/float_backend.hpp"
#include "pipeline/int16_backend.hpp"

namespace fpgacnn {
namespace {

const char* const kValidDevices =
    "auto, cpu, emu, emu:lenient, xrt:<index|BDF>[/cu<k>][@<path.xclbin>], uio:<name>";

bool has_prefix(const std::string& value, const char* prefix) { return value.rfind(prefix, 0) == 0; }
bool is_emu(const std::string& device) { return device == "emu" || has_prefix(device, "emu:"); }
bool is_hardware(const std::string& device) {
    return has_prefix(device, "xrt:") || has_prefix(device, "uio:");
}

}  // namespace

std::string resolve_device(const std::string& device) {
    if (device == "auto") {
        for (const DeviceInfo& info : list_devices()) {
            if (info.usable && is_hardware(info.spec)) return info.spec;
        }
        return "cpu";
    }
    if (device == "cpu" || is_emu(device) || is_hardware(device)) return device;  // open_device checks
    throw Error("unknown device '" + device + "': valid values are " + kValidDevices);
}

std::string resolve_precision(const std::string& device, const std::string& precision) {
    const std::string resolved_device = resolve_device(device);
    const bool accelerator = resolved_device != "cpu";
    if (precision == "auto") return accelerator ? "int16" : "float";
    if (precision != "float" && precision != "int16") {
        throw Error("unknown precision '" + precision + "': valid values are auto, float, int16");
    }
    if (accelerator && precision == "float") {
        throw Error("device '" + device + "' computes in int16 only: use --precision int16 (or auto)");
    }
    return precision;
}

std::unique_ptr<Backend> make_backend(const Network& network, const std::string& device) {
    return make_backend(network, device, "float", nullptr);
}

std::unique_ptr<Backend> make_backend(const Network& network, const std::string& device,
                                      const std::string& precision,
                                      std::shared_ptr<const QuantizedNetwork> quantized,
                                      bool keep_layer_outputs, bool cpu_fallback) {
    const std::string resolved_device = resolve_device(device);
    if (resolve_precision(resolved_device, precision) == "float")
        return std::make_unique<FloatBackend>(network);
    if (!quantized) {
        throw Error(
            "precision int16 needs a quantized network: pass --quantized FILE (made by fpgacnn-quantize) "
            "or calibrate first");
    }
    if (network_fingerprint(quantized->network) != network_fingerprint(network)) {
        throw Error("the quantized network was made for another cfg or input size than " + network.cfg_path +
                    ": re-run fpgacnn-quantize");
    }
    if (is_emu(resolved_device) || is_hardware(resolved_device)) {
        auto open = [=] { return make_device_backend(quantized, resolved_device, keep_layer_outputs); };
        if (cpu_fallback) return std::make_unique<FallbackBackend>(open, quantized);
        return open();
    }
    return std::make_unique<Int16Backend>(std::move(quantized));
}

}  // namespace fpgacnn

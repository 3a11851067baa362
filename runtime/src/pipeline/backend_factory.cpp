// Maps --device and --precision values to a backend. The device registry
// (fpgacnn/drivers/device_registry.hpp) resolves and checks the device; this file picks the CPU
// float, CPU int16 or device backend for it.
#include "fpgacnn/detector.hpp"
#include "fpgacnn/drivers/device_registry.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/exec.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "pipeline/fallback_backend.hpp"
#include "pipeline/float_backend.hpp"
#include "pipeline/int16_backend.hpp"

namespace fpgacnn {
namespace {

/// A device of an accelerator driver (a Device), as opposed to the host's CPU backends.
bool is_accelerator(const std::string& resolved_device) {
    return static_cast<bool>(device_driver(resolved_device).open);
}

}  // namespace

Precision resolve_precision(const std::string& device, Precision precision) {
    const bool accelerator = is_accelerator(resolve_device(device));
    if (precision == Precision::Auto) return accelerator ? Precision::Int16 : Precision::Float;
    if (accelerator && precision == Precision::Float) {
        throw Error("device '" + device +
                    "' computes in fixed point only: use --precision int16, int8 or mixed (or auto)");
    }
    return precision;
}

std::unique_ptr<Backend> make_backend(const Network& network, const BackendOptions& options) {
    const std::string device = resolve_device(options.device);
    const Precision precision = resolve_precision(device, options.precision);
    if (precision == Precision::Float) return std::make_unique<FloatBackend>(network);
    std::shared_ptr<const QuantizedNetwork> quantized = options.quantized;
    if (!quantized) {
        throw Error("precision " + precision_name(precision) +
                    " needs a quantized network: pass --quantized FILE (made by fpgacnn-quantize) or "
                    "calibrate first");
    }
    // auto runs whatever widths the model has, as mixed does.
    require_precision_widths(*quantized, options.precision == Precision::Auto ? Precision::Mixed : precision,
                             "the quantized network");
    if (network_fingerprint(quantized->network) != network_fingerprint(network)) {
        throw Error("the quantized network was made for another cfg or input size than " + network.cfg_path +
                    ": re-run fpgacnn-quantize");
    }
    if (is_accelerator(device)) {
        const bool keep_layer_outputs = options.keep_layer_outputs;
        auto open = [=] { return make_device_backend(quantized, device, keep_layer_outputs); };
        if (options.cpu_fallback)
            return std::make_unique<FallbackBackend>(open, quantized, keep_layer_outputs);
        return open();
    }
    return std::make_unique<Int16Backend>(std::move(quantized), best_int16_isa(), 0,
                                          options.keep_layer_outputs);
}

}  // namespace fpgacnn

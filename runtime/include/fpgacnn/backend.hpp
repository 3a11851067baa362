// The interface every executor of a whole network implements (the CPU float and int16 backends, a
// device through DeviceQueue, the CPU fallback around a device) and the arithmetic it computes in.
// Header of the core component: exec, pipeline and quant all build on it without depending on each
// other.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

class Device;

/// One layer's measured time in the last Backend::run.
struct FPGACNN_API LayerTiming {
    int layer = -1;           ///< the network layer (Layer::index)
    double milliseconds = 0;  ///< device time on accelerators (start to done), wall clock on the CPU
    bool on_device = false;   ///< measured by the device; false: host code (CPU backends, route/region)
    /// Bytes the device read and wrote for the layer; 0 when the backend does not count traffic.
    std::uint64_t bytes_moved = 0;
    /// Kernel clock cycles of the layer's command where the device counts them (CommandStats::cycles).
    std::uint64_t cycles = 0;
};

/// Executes a network's layers on some device; the Detector owns one.
class FPGACNN_API Backend {
public:
    virtual ~Backend() = default;
    /// Runs one frame on a letterboxed CHW float input; returns the activated output of
    /// Network::output_layer_indices(): the region buffer, or every yolo head's one after the other.
    virtual const std::vector<float>& run(const float* input) = 0;
    /// Output of layer i from the last run, float32 in darknet's layout.
    virtual std::vector<float> layer_output(int i) const = 0;
    /// Human-readable name, e.g. "cpu (float, OpenBLAS)".
    virtual std::string name() const = 0;
    /// Per-layer times of the last run (one steady_clock read per layer on the CPU backends);
    /// empty when the backend does not measure them.
    virtual std::vector<LayerTiming> layer_times() const { return {}; }
    /// The accelerator this backend runs on (for telemetry), or null for CPU backends.
    virtual const Device* device() const { return nullptr; }
    /// Golden-twin checking (DetectorOptions::verify_every): run() that also hands back every layer's
    /// int16 output of this frame as the device computed it, indexed by network layer (one extra
    /// sync per layer, this frame only). Backends not on a device leave `layers` empty.
    virtual const std::vector<float>& run_capturing(const float* input,
                                                    std::vector<std::vector<int16_t>>& layers) {
        layers.clear();
        return run(input);
    }
};

/// The arithmetic of a backend (--precision): Float is darknet's float32 reference; the others are
/// the dynamic fixed point of docs/arithmetic.md (bit-identical on every device) with every layer
/// stored at 16 bits (Int16), every conv layer's weights and outputs at 8 bits (Int8), or the
/// per-layer widths of a quantized model file (Mixed). Auto: Int16 on accelerators, Float on the CPU
/// (resolve_precision decides).
enum class Precision { Auto, Float, Int16, Int8, Mixed };

/// Every Precision, in the order --precision help lists them.
inline constexpr std::array<Precision, 5> kPrecisions = {Precision::Auto, Precision::Float, Precision::Int16,
                                                         Precision::Int8, Precision::Mixed};

/// True for the fixed-point precisions (the CPU int16 backend and the devices run them).
FPGACNN_API bool is_fixed_point(Precision precision);

/// "auto", "float", "int16", "int8" or "mixed": the --precision value and what reports print.
FPGACNN_API std::string precision_name(Precision precision);
/// The inverse of precision_name; throws Error listing the valid values.
FPGACNN_API Precision parse_precision(const std::string& text);

struct QuantizedNetwork;
/// Throws Error (naming `where`, e.g. the model file) unless the quantized model's widths are what
/// `precision` promises: all 16 bits for Int16, every conv layer 8-bit for Int8, anything for Mixed.
FPGACNN_API void require_precision_widths(const QuantizedNetwork& quantized, Precision precision,
                                          const std::string& where);
/// The precision the model's widths are: Int16 (all 16 bits), Int8 (every conv layer's weights and
/// outputs 8-bit) or Mixed.
FPGACNN_API Precision precision_of_widths(const QuantizedNetwork& quantized);
/// "all 16-bit", "conv layers 8-bit" or "3 of 9 conv layers with 8-bit weights or outputs": for logs.
FPGACNN_API std::string width_summary(const QuantizedNetwork& quantized);

}  // namespace fpgacnn

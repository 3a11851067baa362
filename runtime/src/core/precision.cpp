// --precision values to Precision and back: the one spelling every tool and report uses.
#include <string>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

std::string precision_name(Precision precision) {
    switch (precision) {
        case Precision::Auto:
            return "auto";
        case Precision::Float:
            return "float";
        case Precision::Int16:
            return "int16";
        case Precision::Int8:
            return "int8";
        case Precision::Mixed:
            return "mixed";
    }
    throw Error("invalid Precision value " + std::to_string(static_cast<int>(precision)));
}

Precision parse_precision(const std::string& text) {
    std::string valid;
    for (const Precision precision : kPrecisions) {
        if (text == precision_name(precision)) return precision;
        valid += (valid.empty() ? "" : ", ") + precision_name(precision);
    }
    throw Error("unknown precision '" + text + "': valid values are " + valid);
}

bool is_fixed_point(Precision precision) {
    return precision == Precision::Int16 || precision == Precision::Int8 || precision == Precision::Mixed;
}

void require_precision_widths(const QuantizedNetwork& quantized, Precision precision,
                              const std::string& where) {
    if (precision == Precision::Mixed || !is_fixed_point(precision)) return;
    const int bits = precision == Precision::Int8 ? arith::kNarrowBits : arith::kDataBits;
    for (std::size_t i = 0; i < quantized.layers.size(); ++i) {
        const QuantizedLayer& q = quantized.layers[i];
        const bool conv = i < quantized.network.layers.size() &&
                          quantized.network.layers[i].type == LayerType::Convolutional;
        // int8 narrows the conv layers; the others carry what they read, whatever the precision.
        if (precision == Precision::Int8 && !conv) continue;
        if (q.output_bits == bits && (!conv || q.weight_bits == bits)) continue;
        throw Error(where + ": layer " + std::to_string(i) + " stores " + std::to_string(q.weight_bits) +
                    "-bit weights and " + std::to_string(q.output_bits) + "-bit outputs, but --precision " +
                    precision_name(precision) + " means " + std::to_string(bits) +
                    " bits; use --precision mixed to run the model file's own widths");
    }
}

namespace {

struct WidthCounts {
    int convs = 0;
    int narrow = 0;      // with 8-bit weights or outputs
    int all_narrow = 0;  // with both
};

WidthCounts count_widths(const QuantizedNetwork& quantized) {
    WidthCounts counts;
    for (std::size_t i = 0; i < quantized.layers.size() && i < quantized.network.layers.size(); ++i) {
        if (quantized.network.layers[i].type != LayerType::Convolutional) continue;
        const QuantizedLayer& q = quantized.layers[i];
        ++counts.convs;
        counts.narrow += q.weight_bits == arith::kNarrowBits || q.output_bits == arith::kNarrowBits ? 1 : 0;
        counts.all_narrow +=
            q.weight_bits == arith::kNarrowBits && q.output_bits == arith::kNarrowBits ? 1 : 0;
    }
    return counts;
}

}  // namespace

Precision precision_of_widths(const QuantizedNetwork& quantized) {
    const WidthCounts counts = count_widths(quantized);
    if (counts.narrow == 0) return Precision::Int16;
    return counts.all_narrow == counts.convs ? Precision::Int8 : Precision::Mixed;
}

std::string width_summary(const QuantizedNetwork& quantized) {
    const WidthCounts counts = count_widths(quantized);
    if (counts.narrow == 0) return "all 16-bit";
    if (counts.all_narrow == counts.convs) return "conv layers 8-bit";
    return std::to_string(counts.narrow) + " of " + std::to_string(counts.convs) +
           " conv layers with 8-bit weights or outputs";
}

}  // namespace fpgacnn

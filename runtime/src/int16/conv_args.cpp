// Conv arguments from the IR + exponents, and the checks that keep every shift in the range
// where the contract's arithmetic is exact.
#include <string>
#include <utility>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "int16/activation_code.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

using int16_detail::shape_text;

void check_int16_conv_args(const Int16ConvArgs& a, const std::string& what) {
    if (a.size < 1 || a.stride < 1 || a.pad < 0 || a.input.c < 1 || a.input.h < 1 || a.input.w < 1 ||
        a.output.c < 1) {
        throw Error(what + ": conv needs size, stride, channels, height, width, filters >= 1 and pad >= 0");
    }
    if (a.leaky && a.relu) throw Error(what + ": conv arguments set both leaky and relu; set at most one");
    const int out_h = (a.input.h + 2 * a.pad - a.size) / a.stride + 1;
    const int out_w = (a.input.w + 2 * a.pad - a.size) / a.stride + 1;
    if (a.input.h + 2 * a.pad < a.size || a.input.w + 2 * a.pad < a.size || a.output.h != out_h ||
        a.output.w != out_w) {
        throw Error(what + ": conv output " + shape_text(a.output) + " does not follow from input " +
                    shape_text(a.input) + ", size " + std::to_string(a.size) + ", stride " +
                    std::to_string(a.stride) + ", pad " + std::to_string(a.pad));
    }
    if (a.bias_shift < arith::kModelMinBiasShift || a.bias_shift > arith::kModelMaxBiasShift) {
        throw Error(what + ": bias shift Qw + Qin - Qb = " + std::to_string(a.bias_shift) + " is outside [" +
                    std::to_string(arith::kModelMinBiasShift) + ", " +
                    std::to_string(arith::kModelMaxBiasShift) +
                    "]; re-run calibration (see docs/arithmetic.md)");
    }
    for (const auto& [bits, name] : {std::pair{a.output_bits, "output"}, std::pair{a.input_bits, "input"},
                                     std::pair{a.weight_bits, "weight"}}) {
        // The CPU also runs the study widths of fpgacnn-quantize --explore (arith::is_study_width).
        if (!arith::is_cpu_width(bits)) {
            throw Error(what + ": " + name + " width " + std::to_string(bits) +
                        " bits; the contract stores " + std::to_string(arith::kDataBits) + " or " +
                        std::to_string(arith::kNarrowBits) + " (6 and 4 for the width study)");
        }
    }
    if (a.output_shift < arith::kModelMinOutputShift || a.output_shift > arith::kModelMaxOutputShift) {
        throw Error(what + ": output shift Qw + Qin - Qout = " + std::to_string(a.output_shift) +
                    " is outside [" + std::to_string(arith::kModelMinOutputShift) + ", " +
                    std::to_string(arith::kModelMaxOutputShift) +
                    "]; re-run calibration (see docs/arithmetic.md)");
    }
}

Int16ConvArgs int16_conv_args(const Layer& layer, const QuantizedLayer& quantized, int input_bits) {
    const std::string what = int16_detail::describe_layer(layer);
    if (layer.type != LayerType::Convolutional) throw Error(what + " is not a [convolutional] layer");
    const ConvParams& conv = layer.conv();
    Int16ConvArgs args;
    args.input = layer.input;
    args.output = layer.output;
    args.size = conv.size;
    args.stride = conv.stride;
    args.pad = conv.pad;
    const uint32_t activation = int16_detail::conv_fixed_point_activation(conv.activation, what);
    args.leaky = activation == arith::kActivationLeaky;
    args.relu = activation == arith::kActivationRelu;
    args.bias_shift = quantized.weight_q + quantized.input_q - quantized.bias_q;
    args.output_shift = quantized.weight_q + quantized.input_q - quantized.output_q;
    args.output_bits = quantized.output_bits;
    args.input_bits = input_bits;
    args.weight_bits = quantized.weight_bits;
    if (conv.filters != layer.output.c) {
        throw Error(what + ": " + std::to_string(conv.filters) + " filters but output shape " +
                    shape_text(layer.output));
    }
    check_int16_conv_args(args, what);
    require_weights_fit_width(quantized, what);
    if (quantized.weights.size() != args.weight_count() ||
        quantized.biases.size() != static_cast<std::size_t>(args.output.c)) {
        throw Error(what + ": the quantized layer has " + std::to_string(quantized.weights.size()) +
                    " weights and " + std::to_string(quantized.biases.size()) +
                    " biases, but its shape needs " + std::to_string(args.weight_count()) + " and " +
                    std::to_string(args.output.c));
    }
    return args;
}

}  // namespace fpgacnn

// darknet's [upsample] and [shortcut] on int16 (docs/arithmetic.md, "Shortcut"). Plain scalar code that
// every ISA path of the engine calls, so all of them compute the same bits by construction.
#include <algorithm>
#include <cstddef>
#include <string>

#include "core/shortcut_overlap.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16/activation_code.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

void int16_upsample(const Layer& layer, const int16_t* input, int16_t* output) {
    if (layer.type != LayerType::Upsample)
        throw Error("int16_upsample called on " + int16_detail::describe_layer(layer));
    const int stride = layer.upsample().stride;
    const TensorShape& in = layer.input;
    const TensorShape& out = layer.output;
    for (int c = 0; c < out.c; ++c) {
        for (int y = 0; y < out.h; ++y) {
            const int16_t* source = input + (static_cast<std::size_t>(c) * in.h + y / stride) * in.w;
            int16_t* target = output + (static_cast<std::size_t>(c) * out.h + y) * out.w;
            for (int x = 0; x < out.w; ++x) target[x] = source[x / stride];
        }
    }
}

void int16_shortcut(const Layer& layer, const Int16ShortcutArgs& args, const int16_t* input,
                    const int16_t* added, const TensorShape& added_shape, int16_t* output) {
    const std::string what = int16_detail::describe_layer(layer);
    if (layer.type != LayerType::Shortcut) throw Error("int16_shortcut called on " + what);
    const Activation activation = layer.shortcut().activation;
    const uint32_t code = int16_detail::fixed_point_activation(activation, what);
    // The kernel's shortcut op computes the same per value (arith::shortcut_sum, arith::requantize_sum).
    const int align = args.input_q - args.added_q;
    const int shift = std::max(args.input_q, args.added_q) - args.output_q;
    const TensorShape& out = layer.output;
    // Where `added` does not reach, the output is the previous layer's value requantized alone.
    for (std::size_t i = 0; i < out.size(); ++i)
        output[i] =
            arith::requantize_sum(arith::shortcut_sum(input[i], 0, align), shift, code, args.output_bits);
    core::for_each_shortcut_pair(out, added_shape, [&](std::size_t out_index, std::size_t added_index) {
        output[out_index] = arith::requantize_sum(
            arith::shortcut_sum(input[out_index], added[added_index], align), shift, code, args.output_bits);
    });
}

}  // namespace fpgacnn

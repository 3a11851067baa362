// darknet's classifier layers that change values on the fixed-point paths ([avgpool], [crop]); both
// keep their input's exponent (docs/arithmetic.md, "Classifier layers"). [softmax] is not here: it is
// an output layer, activated in float on the host after dequantization as [region] is.
#include <cstddef>
#include <cstdint>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "int16/layer_names.hpp"

namespace fpgacnn {

namespace {

/// floor(a / b) for b > 0 (C++ division truncates toward zero).
std::int64_t floor_divide(std::int64_t a, std::int64_t b) {
    const std::int64_t quotient = a / b;
    return (a % b != 0 && a < 0) ? quotient - 1 : quotient;
}

}  // namespace

void int16_avgpool(const Layer& layer, const int16_t* input, int16_t* output) {
    if (layer.type != LayerType::AvgPool)
        throw Error("int16_avgpool called on " + int16_detail::describe_layer(layer));
    const std::size_t plane = static_cast<std::size_t>(layer.input.h) * layer.input.w;
    const auto n = static_cast<std::int64_t>(plane);
    for (int c = 0; c < layer.input.c; ++c) {
        const int16_t* channel = input + static_cast<std::size_t>(c) * plane;
        std::int64_t sum = 0;
        for (std::size_t i = 0; i < plane; ++i) sum += channel[i];
        // Round half up: floor(sum / n + 1/2) = floor((2 sum + n) / 2n).
        output[c] = static_cast<int16_t>(floor_divide(2 * sum + n, 2 * n));
    }
}

void int16_crop(const Layer& layer, int q, int bits, const int16_t* input, int16_t* output) {
    if (layer.type != LayerType::Crop)
        throw Error("int16_crop called on " + int16_detail::describe_layer(layer));
    const bool adjust = !layer.crop().noadjust;
    const std::int64_t one = arith::round_shift(1, -q);  // 1.0 at exponent q
    const int dh = (layer.input.h - layer.output.h) / 2;
    const int dw = (layer.input.w - layer.output.w) / 2;
    std::size_t out = 0;
    for (int c = 0; c < layer.output.c; ++c) {
        for (int y = 0; y < layer.output.h; ++y) {
            const int16_t* row =
                input + (static_cast<std::size_t>(c) * layer.input.h + y + dh) * layer.input.w + dw;
            for (int x = 0; x < layer.output.w; ++x) {
                const std::int64_t v = adjust ? 2 * static_cast<std::int64_t>(row[x]) - one : row[x];
                output[out++] = arith::saturate_to_width(v, bits);
            }
        }
    }
}

}  // namespace fpgacnn

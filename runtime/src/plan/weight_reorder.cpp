// Weights between darknet's [M][N][K][K] order and the kernel's (Tm, Tn) block layout
// (kernel/weight_layout.hpp), and the packed parameter buffer of a whole network.
#include <algorithm>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/weight_layout.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn {

namespace {

kernel::WeightLayout layout_of(int out_c, int in_c, int size, int tm, int tn) {
    if (out_c <= 0 || in_c <= 0 || size <= 0 || tm <= 0 || tn <= 0) {
        throw Error("weight re-ordering: invalid shape " + std::to_string(out_c) + "x" +
                    std::to_string(in_c) + "x" + std::to_string(size) + "x" + std::to_string(size) +
                    " for Tm=" + std::to_string(tm) + " Tn=" + std::to_string(tn));
    }
    return kernel::WeightLayout{static_cast<uint32_t>(out_c), static_cast<uint32_t>(in_c),
                                static_cast<uint32_t>(size), static_cast<uint32_t>(tm),
                                static_cast<uint32_t>(tn)};
}

template <class Visit>
void for_each_weight(const kernel::WeightLayout& layout, Visit visit) {
    // Taps are consecutive in darknet order and tn*tm apart in the kernel's: one index() per (m, n).
    const uint32_t taps = layout.kernel_size * layout.kernel_size;
    const uint32_t tap_stride = layout.tn * layout.tm;
    for (uint32_t m = 0; m < layout.out_c; ++m) {
        for (uint32_t n = 0; n < layout.in_c; ++n) {
            const uint32_t darknet = layout.darknet_index(m, n, 0, 0);
            const uint32_t reordered = layout.index(m, n, 0, 0);
            for (uint32_t t = 0; t < taps; ++t) visit(darknet + t, reordered + t * tap_stride);
        }
    }
}

}  // namespace

std::vector<int16_t> reorder_weights(const std::vector<int16_t>& darknet_order, int out_c, int in_c, int size,
                                     int tm, int tn) {
    const kernel::WeightLayout layout = layout_of(out_c, in_c, size, tm, tn);
    const std::size_t expected = static_cast<std::size_t>(out_c) * in_c * size * size;
    if (darknet_order.size() != expected) {
        throw Error("weight re-ordering: " + std::to_string(darknet_order.size()) +
                    " weights given, the layer has " + std::to_string(expected));
    }
    std::vector<int16_t> reordered(layout.total_elements(), 0);
    for_each_weight(layout, [&](uint32_t from, uint32_t to) { reordered[to] = darknet_order[from]; });
    return reordered;
}

std::vector<int16_t> restore_weights(const std::vector<int16_t>& reordered, int out_c, int in_c, int size,
                                     int tm, int tn) {
    const kernel::WeightLayout layout = layout_of(out_c, in_c, size, tm, tn);
    if (reordered.size() != layout.total_elements()) {
        throw Error("weight restoring: " + std::to_string(reordered.size()) +
                    " re-ordered weights given, Tm=" + std::to_string(tm) + " Tn=" + std::to_string(tn) +
                    " blocks need " + std::to_string(layout.total_elements()));
    }
    std::vector<int16_t> darknet_order(static_cast<std::size_t>(out_c) * in_c * size * size);
    for_each_weight(layout, [&](uint32_t to, uint32_t from) { darknet_order[to] = reordered[from]; });
    return darknet_order;
}

std::vector<int16_t> pack_parameters(const NetworkPlan& plan, const QuantizedNetwork& network) {
    if (network.layers.size() != plan.layers.size()) {
        throw Error("pack_parameters: the quantized network has " + std::to_string(network.layers.size()) +
                    " layers, the plan " + std::to_string(plan.layers.size()) + "; plan the same network");
    }
    std::vector<int16_t> params(plan.parameter_elements, 0);
    const KernelMaxima& mx = plan.options.maxima;
    for (const LayerPlan& lp : plan.layers) {
        if (lp.type != LayerType::Convolutional) continue;
        const QuantizedLayer& q = network.layers[static_cast<std::size_t>(lp.index)];
        const int size = static_cast<int>(lp.command.kernel_size);
        const std::vector<int16_t> reordered =
            reorder_weights(q.weights, lp.output_shape.c, lp.input_shape.c, size, mx.tm, mx.tn);
        if (q.biases.size() != static_cast<std::size_t>(lp.output_shape.c)) {
            throw Error("layer " + std::to_string(lp.index) +
                        " (convolutional): " + std::to_string(q.biases.size()) +
                        " quantized biases, the layer has " + std::to_string(lp.output_shape.c) + " filters");
        }
        std::copy(reordered.begin(), reordered.end(),
                  params.begin() + static_cast<std::ptrdiff_t>(lp.weight_offset));
        std::copy(q.biases.begin(), q.biases.end(),
                  params.begin() + static_cast<std::ptrdiff_t>(lp.bias_offset));
    }
    return params;
}

}  // namespace fpgacnn

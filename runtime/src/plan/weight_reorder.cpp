// Weights between darknet's [M][N][K][K] order and the kernel's (Tm, Tn) block layout
// (kernel/weight_layout.hpp), and the parameter buffer of a whole network (8-bit layers' weights
// two per word, kernel::store_weight_blocks).
#include <algorithm>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/weight_layout.hpp"
#include "fpgacnn/plan.hpp"
#include "plan/planned_widths.hpp"

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

void check_weight_count(std::size_t given, int out_c, int in_c, int size) {
    const std::size_t expected = static_cast<std::size_t>(out_c) * in_c * size * size;
    if (given != expected) {
        throw Error("weight re-ordering: " + std::to_string(given) + " weights given, the layer has " +
                    std::to_string(expected));
    }
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
    check_weight_count(darknet_order.size(), out_c, in_c, size);
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

void write_parameters(const NetworkPlan& plan, const QuantizedNetwork& network, int16_t* destination,
                      const ParametersWritten& written) {
    if (network.layers.size() != plan.layers.size()) {
        throw Error("write_parameters: the quantized network has " + std::to_string(network.layers.size()) +
                    " layers, the plan " + std::to_string(plan.layers.size()) + "; plan the same network");
    }
    const KernelMaxima& mx = plan.options.maxima;
    std::size_t done = 0;  // [0, done) is written: each layer's range starts where the previous ended
    const auto finish_range = [&](std::size_t end) {
        if (written && end > done) written(done, end - done);
        done = end;
    };
    for (const LayerPlan& lp : plan.layers) {
        if (lp.type != LayerType::Convolutional) continue;
        const std::size_t end = lp.bias_offset + lp.bias_elements;
        std::fill(destination + done, destination + end, int16_t{0});  // block and alignment padding
        // One layer in memory at a time: read from the model file when the parameters are there.
        const ResidentLayer resident(network, static_cast<std::size_t>(lp.index));
        const QuantizedLayer& q = resident.get();
        const int size = static_cast<int>(lp.command.kernel_size);
        const kernel::WeightLayout layout =
            layout_of(lp.output_shape.c, lp.input_shape.c, size, mx.tm, mx.tn);
        check_weight_count(q.weights.size(), lp.output_shape.c, lp.input_shape.c, size);
        if (q.biases.size() != static_cast<std::size_t>(lp.output_shape.c)) {
            throw Error("layer " + std::to_string(lp.index) +
                        " (convolutional): " + std::to_string(q.biases.size()) +
                        " quantized biases, the layer has " + std::to_string(lp.output_shape.c) + " filters");
        }
        const std::string what = "layer " + std::to_string(lp.index) + " (convolutional)";
        plan_detail::require_planned_weight_bits(lp, q.weight_bits, what);
        const int bits = q.weight_bits;
        // An 8-bit value outside [-128, 127] would lose its high bits in the packed byte.
        require_weights_fit_width(q, what);
        std::vector<int16_t> reordered(layout.total_elements(), 0);
        for_each_weight(layout, [&](uint32_t from, uint32_t to) { reordered[to] = q.weights[from]; });
        kernel::store_weight_blocks(layout, reordered.data(), bits, destination + lp.weight_offset);
        std::copy(q.biases.begin(), q.biases.end(), destination + lp.bias_offset);
        finish_range(end);
    }
    std::fill(destination + done, destination + plan.parameter_words, int16_t{0});
    finish_range(plan.parameter_words);
}

std::vector<int16_t> pack_parameters(const NetworkPlan& plan, const QuantizedNetwork& network) {
    std::vector<int16_t> params(plan.parameter_words);
    write_parameters(plan, network, params.data());
    return params;
}

}  // namespace fpgacnn

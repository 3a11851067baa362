#include "quant/layer_widths.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/carried_widths.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn {

namespace {

// Widens every conv layer whose values reach layer `index` unchanged (through maxpool, reorg, route).
void widen_producers(const Network& network, std::size_t index, int route, std::vector<int>& conv_output_bits,
                     std::vector<std::string>& notes) {
    const Layer& layer = network.layers[index];
    if (layer.type == LayerType::Convolutional) {
        if (conv_output_bits[index] == arith::kDataBits) return;
        conv_output_bits[index] = arith::kDataBits;
        notes.push_back(
            fmt::format("layer {} (conv): output widened to {} bits: route layer {} joins it "
                        "with {}-bit values",
                        index, arith::kDataBits, route, arith::kDataBits));
    } else if (layer.type == LayerType::Route) {
        for (const int source : layer.route().inputs)
            widen_producers(network, static_cast<std::size_t>(source), route, conv_output_bits, notes);
    } else if (index > 0) {
        widen_producers(network, index - 1, route, conv_output_bits, notes);
    }
}

}  // namespace

std::vector<LayerWidths> uniform_conv_widths(const Network& network, int bits) {
    std::vector<LayerWidths> widths(network.layers.size());
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        if (network.layers[i].type == LayerType::Convolutional) widths[i] = {bits, bits};
    }
    return widths;
}

WidthPlan plan_widths(const Network& network, const std::vector<LayerWidths>& requested) {
    const std::size_t count = network.layers.size();
    if (!requested.empty() && requested.size() != count) {
        throw Error(fmt::format("{}: widths for {} layers, the network has {}", network.cfg_path,
                                requested.size(), count));
    }
    WidthPlan plan;
    plan.weight_bits.assign(count, arith::kDataBits);
    std::vector<int> conv_output_bits(count, arith::kDataBits);
    for (std::size_t i = 0; i < requested.size(); ++i) {
        if (network.layers[i].type != LayerType::Convolutional) continue;
        for (const int bits : {requested[i].weight_bits, requested[i].output_bits}) {
            // Study widths calibrate too (for the CPU only; the file writer and devices refuse them).
            if (!arith::is_cpu_width(bits)) {
                throw Error(
                    fmt::format("layer {} (conv): width {} bits; the contract stores {} or {} "
                                "({} and {} for the width study)",
                                i, bits, arith::kDataBits, arith::kNarrowBits, arith::kStudyWidths[0],
                                arith::kStudyWidths[1]));
            }
        }
        plan.weight_bits[i] = requested[i].weight_bits;
        conv_output_bits[i] = requested[i].output_bits;
    }
    // Widening only ever goes from a narrower width to 16 bits, so this ends after at most one round
    // per conv layer.
    for (bool changed = true; changed;) {
        changed = false;
        const std::vector<int> bits = core::carried_output_bits(network, conv_output_bits);
        for (std::size_t i = 0; i < count; ++i) {
            if (network.layers[i].type != LayerType::Route) continue;
            for (const int source : network.layers[i].route().inputs) {
                if (bits[source] == bits[i]) continue;
                widen_producers(network, static_cast<std::size_t>(source), static_cast<int>(i),
                                conv_output_bits, plan.notes);
                changed = true;
            }
        }
    }
    plan.output_bits = core::carried_output_bits(network, conv_output_bits);
    return plan;
}

}  // namespace fpgacnn

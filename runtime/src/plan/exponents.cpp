// The exponents and storage widths of a quantized network turned into the commands' shifts and widths.
#include <algorithm>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/plan.hpp"
#include "plan/planned_widths.hpp"

namespace fpgacnn {

std::vector<kernel::LayerCommand> with_exponents(const NetworkPlan& plan, const QuantizedNetwork& network) {
    if (network.layers.size() != plan.layers.size()) {
        throw Error("with_exponents: the quantized network has " + std::to_string(network.layers.size()) +
                    " layers, the plan " + std::to_string(plan.layers.size()) + "; plan the same network");
    }
    const std::vector<int> input_bits = layer_input_bits(network);
    std::vector<kernel::LayerCommand> commands;
    for (const LayerPlan& lp : plan.layers) {
        if (!lp.on_device) continue;
        const QuantizedLayer& q = network.layers[static_cast<std::size_t>(lp.index)];
        kernel::LayerCommand c = lp.command;
        const std::string what = "layer " + std::to_string(lp.index) + " (" + layer_type_name(lp.type) + ")";
        if (lp.type == LayerType::Convolutional) {
            c.bias_shift = q.weight_q + q.input_q - q.bias_q;
            c.output_shift = q.weight_q + q.input_q - q.output_q;
            if (c.bias_shift < arith::kExactMinBiasShift || c.bias_shift > arith::kExactMaxBiasShift) {
                throw Error(what + ": bias shift Qw + Qin - Qb = " + std::to_string(c.bias_shift) +
                            " is outside " + std::to_string(arith::kExactMinBiasShift) + ".." +
                            std::to_string(arith::kExactMaxBiasShift) + "; re-run calibration");
            }
        } else if (lp.type == LayerType::Shortcut) {
            // The kernel's shortcut op (contract 7): bias_shift aligns the operands (Qa - Qb), output_shift
            // takes their sum from max(Qa, Qb) to Qout; the `from` tensor's width was planned (weight_bits).
            const std::size_t from = static_cast<std::size_t>(
                network.network.layers[static_cast<std::size_t>(lp.index)].shortcut().from);
            const QuantizedLayer& added = network.layers[from];
            c.bias_shift = q.input_q - added.output_q;
            c.output_shift = std::max(q.input_q, added.output_q) - q.output_q;
            if (c.output_shift < -arith::kShortcutMaxOutputGain) {
                throw Error(
                    what + ": output exponent " + std::to_string(q.output_q) + " is more than " +
                    std::to_string(arith::kShortcutMaxOutputGain) +
                    " above its operands' (docs/arithmetic.md \"Shortcut on int16\"); re-run calibration");
            }
            if (c.weight_bits != static_cast<uint32_t>(added.output_bits)) {
                throw Error(what + ": the plan adds layer " + std::to_string(from) + " at " +
                            std::to_string(c.weight_bits) + " bits, the quantized network stores it at " +
                            std::to_string(added.output_bits) +
                            "; plan with the network's widths (plan_widths_of)");
            }
        } else {
            c.output_shift = q.input_q - q.output_q;
        }
        if (!arith::is_storage_width(q.output_bits)) {
            throw Error(what + ": output width " + std::to_string(q.output_bits) + " bits is neither " +
                        std::to_string(arith::kDataBits) + " nor " + std::to_string(arith::kNarrowBits) +
                        "; re-run calibration");
        }
        plan_detail::require_planned_output_bits(lp, q.output_bits, what);
        if (lp.type == LayerType::Convolutional)
            plan_detail::require_planned_weight_bits(lp, q.weight_bits, what);
        plan_detail::require_planned_input_bits(lp, input_bits[static_cast<std::size_t>(lp.index)], what);
        if (c.output_shift < arith::kExactMinOutputShift || c.output_shift > arith::kExactMaxOutputShift) {
            throw Error(what + ": output shift " + std::to_string(c.output_shift) + " is outside " +
                        std::to_string(arith::kExactMinOutputShift) + ".." +
                        std::to_string(arith::kExactMaxOutputShift) + "; re-run calibration");
        }
        commands.push_back(c);
    }
    return commands;
}

}  // namespace fpgacnn

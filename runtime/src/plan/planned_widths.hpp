// A plan is made for the network's widths (PlanOptions::weight_bits / ::input_bits): a conv layer's
// parameters are laid out for its weight width, and the estimate and the commands carry the input
// widths. with_exponents and write_parameters refuse a quantized network of other widths, with these
// messages.
#pragma once

#include <cstdint>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::plan_detail {

/// Throws Error (prefixed with `what`) unless the plan laid `lp`'s weights out at `weight_bits`.
inline void require_planned_weight_bits(const LayerPlan& lp, int weight_bits, const std::string& what) {
    if (lp.command.weight_bits == static_cast<std::uint32_t>(weight_bits)) return;
    throw Error(what + ": " + std::to_string(weight_bits) + "-bit weights, but the plan laid them out at " +
                std::to_string(lp.command.weight_bits) + " bits; plan with plan_widths_of(network, options)");
}

/// Throws Error (prefixed with `what`) unless the plan was made for an input of `input_bits` (its
/// estimate counts a conv's pair mode from it, and maxpool / reorg commands carry it).
inline void require_planned_input_bits(const LayerPlan& lp, int input_bits, const std::string& what) {
    if (lp.command.input_bits == static_cast<std::uint32_t>(input_bits)) return;
    throw Error(what + ": " + std::to_string(input_bits) + "-bit input, but the plan was made for " +
                std::to_string(lp.command.input_bits) + " bits; plan with plan_widths_of(network, options)");
}

}  // namespace fpgacnn::plan_detail

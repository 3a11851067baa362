// A plan is made for the network's widths (PlanOptions::weight_bits / ::output_bits): a conv layer's
// parameters are laid out for its weight width, the arena for every tensor's width, and the estimate
// and the commands carry them. with_exponents and write_parameters refuse a quantized network of other
// widths, with these messages.
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

/// Throws Error (prefixed with `what`) unless the plan was made for an input of `input_bits` (the
/// arena holds the input at that width, and the estimate counts a conv's pair mode from it).
inline void require_planned_input_bits(const LayerPlan& lp, int input_bits, const std::string& what) {
    if (lp.command.input_bits == static_cast<std::uint32_t>(input_bits)) return;
    throw Error(what + ": " + std::to_string(input_bits) + "-bit input, but the plan was made for " +
                std::to_string(lp.command.input_bits) + " bits; plan with plan_widths_of(network, options)");
}

/// Throws Error (prefixed with `what`) unless the plan placed the output at `output_bits`.
inline void require_planned_output_bits(const LayerPlan& lp, int output_bits, const std::string& what) {
    if (lp.output.bits == output_bits) return;
    throw Error(what + ": " + std::to_string(output_bits) + "-bit output, but the plan placed it at " +
                std::to_string(lp.output.bits) + " bits; plan with plan_widths_of(network, options)");
}

}  // namespace fpgacnn::plan_detail

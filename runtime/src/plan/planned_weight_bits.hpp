// A conv layer's parameters are laid out for the weight width the plan was made with
// (PlanOptions::weight_bits): with_exponents and write_parameters both refuse a quantized layer of
// another width, with this one message.
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
                std::to_string(lp.command.weight_bits) +
                " bits; plan with PlanOptions::weight_bits = conv_weight_bits(network)");
}

}  // namespace fpgacnn::plan_detail

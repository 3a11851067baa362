// The planner's latency model held to the cycles an rtl device counted (tests/rtl_device and the
// slow tests/rtl_device_slow).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/rtl_device.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn::test {

// The planner's latency model against the cycles the RTL counted, command by command (issue 32: within
// 10 % per layer and 5 % per frame, with the memory model the simulation ran on).
inline void expect_model_predicts(const std::vector<CommandStats>& measured, const QuantizedNetwork& q,
                                  const KernelMaxima& maxima, const std::string& memory,
                                  const std::string& name) {
    PlanOptions options = rtl_plan_options(parse_rtl_spec("rtl:mem=" + memory).memory, maxima);
    plan_widths_of(q, options);
    const NetworkPlan plan = plan_network(q.network, options);
    double predicted_total = 0, measured_total = 0;
    for (const CommandStats& stats : measured) {
        const LayerPlan& layer = plan.layers.at(static_cast<std::size_t>(stats.layer));
        const double predicted = layer.estimate.total_cycles;
        const double cycles = static_cast<double>(stats.cycles);
        EXPECT_NEAR(predicted / cycles, 1.0, 0.10)
            << name << ": layer " << stats.layer << " (" << layer_type_name(layer.type) << "): predicted "
            << predicted << " cycles, the RTL took " << cycles;
        predicted_total += predicted;
        measured_total += cycles;
    }
    EXPECT_NEAR(predicted_total / measured_total, 1.0, 0.05)
        << name << ": predicted " << predicted_total << " cycles a frame, the RTL took " << measured_total;
}

}  // namespace fpgacnn::test

// The roofs of the roofline chart: peak compute and memory bandwidth of what runs the layers, with
// the assumption they rest on (printed beside the chart, so a reader can judge it).
#pragma once

#include <string>

#include "fpgacnn/backend.hpp"

namespace fpgacnn::bench {

struct MachineRoofs {
    double peak_gops = 0;      // GOP/s (1 MAC = 2 ops)
    double bandwidth_gbs = 0;  // GB/s
    std::string basis;
};

/// An accelerator: its kernel build's Tm x Tn MACs per cycle at the planner's clock and DDR
/// bandwidth. The CPU: cores x max clock x SIMD ops per cycle for `precision`, and a measured copy
/// bandwidth.
MachineRoofs machine_roofs(const Device* device, Precision precision);

}  // namespace fpgacnn::bench

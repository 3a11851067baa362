// The layers the kernel contract has no command for (upsample, shortcut, route with groups, avgpool, crop),
// run on the host between a device's commands with the CPU engine's int16 code (bit-exact with the CPU
// backend): their inputs are read back from the arena, their output written into its planned place.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "fpgacnn/plan.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn::exec_detail {

/// Reads an arena range as int16 values (8-bit tensors widened).
using ArenaReader = std::function<void(const ArenaRange&, std::vector<int16_t>&)>;
/// Writes int16 values into an arena range (narrowed for 8-bit tensors) and syncs it to the device.
using ArenaWriter = std::function<void(const ArenaRange&, const std::vector<int16_t>&)>;

/// Runs layer `lp` (LayerPlan::on_host) of `plan` for `network`.
void run_host_layer(const QuantizedNetwork& network, const NetworkPlan& plan, const LayerPlan& lp,
                    const ArenaReader& read, const ArenaWriter& write);

}  // namespace fpgacnn::exec_detail

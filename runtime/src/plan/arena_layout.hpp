// Placement of every feature map in one DMA arena: route layers alias (a single-input route is its
// source; a concatenation is one buffer whose producers write into their channel slices, contiguous
// in CHW), and buffers whose lifetimes do not overlap share memory.
#pragma once

#include <cstddef>
#include <vector>

#include "fpgacnn/network.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::plan_detail {

struct ArenaLayout {
    ArenaRange input;                 // the network input
    std::vector<ArenaRange> outputs;  // per layer: its output tensor
    std::size_t elements = 0;
    std::size_t elements_without_reuse = 0;
};

/// Throws Error naming the layer when a route cannot be realised by placement (a tensor feeding two
/// concatenations, nested concatenations, mismatched spatial sizes).
ArenaLayout place_tensors(const Network& network, std::size_t alignment);

}  // namespace fpgacnn::plan_detail

// Placement of every feature map in one DMA arena: route layers alias (a single-input route is its
// source; a concatenation is one buffer whose producers write into their channel slices, contiguous
// in CHW), and buffers whose lifetimes do not overlap share memory. Buffers are placed in 16-bit
// words; an 8-bit tensor takes half as many (one byte per element, arith::fm_element_bytes).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/layer_description.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn::plan_detail {

struct ArenaLayout {
    ArenaRange input;                 // the network input
    std::vector<ArenaRange> outputs;  // per layer: its output tensor, at its width
    /// Per layer: a concatenation whose inputs already sit in another one; the host copies them.
    std::vector<bool> host_routes;
    std::size_t elements = 0;  // 16-bit words
    std::size_t elements_without_reuse = 0;
};

using core::describe_layer;

/// `output_bits[i]`: the storage width of layer i's output (a route's inputs must share it). Offsets
/// are aligned to `alignment` words. A route whose inputs already feed another concatenation becomes a
/// host copy (ArenaLayout::host_routes). Throws Error naming the layer when a route cannot be realised
/// (nested concatenations, mismatched spatial sizes or widths).
ArenaLayout place_tensors(const Network& network, std::size_t alignment, const std::vector<int>& output_bits);

}  // namespace fpgacnn::plan_detail

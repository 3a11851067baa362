// Which earlier outputs a layer reads (darknet's wiring), stated once for the planner's buffer
// lifetimes (plan/arena_layout.cpp) and the equalization's pairing (quant/equalize_ranges.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::core {

/// The layers whose outputs layer `i` reads: a route its inputs, a shortcut the previous layer and
/// `from`, every other layer the previous one (-1: the network input).
inline std::vector<int> layer_inputs(const Network& network, int i) {
    const Layer& layer = network.layers[static_cast<std::size_t>(i)];
    if (layer.type == LayerType::Route) return layer.route().inputs;
    if (layer.type == LayerType::Shortcut) return {i - 1, layer.shortcut().from};
    return {i - 1};
}

}  // namespace fpgacnn::core

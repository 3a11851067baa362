// The storage width of every layer's output from its conv layers' output widths (docs/arithmetic.md,
// "Per-layer widths"): maxpool, reorg and region carry their input's width, a route its inputs' (the
// widest, so a caller sees where they differ), the network input is arith::kNetworkInputBits. One rule
// for calibration (quant/layer_widths.cpp, which widens what a route joins) and the planner (which
// places every tensor at its width).
#pragma once

#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::core {

/// `conv_output_bits[i]`: conv layer i's output width (other entries are ignored). A route input that
/// is not an earlier layer is skipped (the planner refuses such a route with its own message).
std::vector<int> carried_output_bits(const Network& network, const std::vector<int>& conv_output_bits);

}  // namespace fpgacnn::core

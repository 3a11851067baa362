// fpgacnn-train --device: what the fixed-point phases (BP, WG) cost over the run, from the device's
// command statistics.
#pragma once

#include <string>

#include "train/device_gradients.hpp"

namespace fpgacnn::train_tool {

/// A table: per phase (and with `per_layer`, per layer and phase) the commands, reruns, useful MACs,
/// the traffic and the device's time; `images` the training images the run backpropagated.
std::string format_device_report(const train::DeviceGradients& gradients, std::uint64_t images,
                                 bool per_layer);

}  // namespace fpgacnn::train_tool

// The `seen` of a darknet .weights header (images its parameters were trained on): darknet's
// train_detector continues from it (iteration seen / (batch * subdivisions), the burn-in and the
// rate schedule), unless told -clear.
#pragma once

#include <cstdint>
#include <string>

namespace fpgacnn::train_tool {

/// Reads `seen` (32-bit before version 0.2, 64-bit from it) of a file load_darknet_weights accepted.
/// Throws Error naming the file when it cannot be read.
std::uint64_t read_weights_seen(const std::string& path);

}  // namespace fpgacnn::train_tool

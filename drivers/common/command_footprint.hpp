// What a layer command touches in the device buffers, and the checks a driver of real hardware makes
// before it raises ap_start: the IP itself checks nothing it cannot (a wrong offset would make it
// read or write outside its buffers), so the host refuses such a command with a clear message.
#pragma once

#include <cstdint>
#include <string>

#include "fpgacnn/device.hpp"

namespace fpgacnn {

/// A byte range [begin, end) in one buffer.
struct ByteSpan {
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
    bool overlaps(const ByteSpan& o) const { return begin < o.end && o.begin < end; }
    std::string text() const;
};

struct CommandFootprint {
    ByteSpan input;    // arena; empty for identify
    ByteSpan output;   // arena
    ByteSpan weights;  // parameters; conv only
    ByteSpan biases;   // parameters; conv only
};

/// The ranges `command` reads and writes on a kernel built with `maxima` (weight blocks are Tm x Tn).
CommandFootprint command_footprint(const kernel::LayerCommand& command, const KernelMaxima& maxima);

/// Throws Error (prefixed by `who`) when the command does not fit the kernel build `maxima` (a plan
/// made for another bitstream), is malformed, or reaches outside `arena` / `parameters`.
CommandFootprint check_command_fits(const std::string& who, const kernel::LayerCommand& command,
                                    const KernelMaxima& maxima, const DeviceBuffer& arena,
                                    const DeviceBuffer& parameters);

}  // namespace fpgacnn

// What a layer command touches in the device buffers, and the one check every driver makes before it
// starts a command: the IP itself checks nothing it cannot (a wrong offset would make it read or
// write outside its buffers), so the host refuses such a command with a clear message.
#pragma once

#include <cstdint>
#include <string>

#include "fpgacnn/device.hpp"
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// A byte range [begin, end) in one buffer.
struct FPGACNN_API ByteSpan {
    std::uint64_t begin = 0;  ///< first byte, from the buffer's start
    std::uint64_t end = 0;    ///< one past the last byte (begin == end: empty)
    /// Whether the two ranges share a byte (an empty range overlaps nothing).
    bool overlaps(const ByteSpan& o) const { return begin < o.end && o.begin < end; }
    /// "[begin, end)" for messages.
    std::string text() const;
};

/// The byte ranges one command reads and writes in the arena and the parameter buffer.
struct FPGACNN_API CommandFootprint {
    ByteSpan input;    ///< arena; empty for identify
    ByteSpan output;   ///< arena
    ByteSpan weights;  ///< parameters; conv only
    ByteSpan biases;   ///< parameters; conv only
};

/// The ranges `command` reads and writes on a kernel built with `maxima` (weight blocks are Tm x Tn).
FPGACNN_API CommandFootprint command_footprint(const kernel::LayerCommand& command,
                                               const KernelMaxima& maxima);

/// The arena range of a command's second input, which CommandFootprint has no field for: the error dY a
/// weight-gradient command (kernel::kOpWeightGradient, contract 6) reads, or the `from` tensor a shortcut
/// command (kernel::kOpShortcut, contract 7) adds, at its width; empty for every other op.
FPGACNN_API ByteSpan command_error_span(const kernel::LayerCommand& command);

/// The check of every driver's start(), against the maxima of the DEVICE's kernel build (its
/// fingerprint), not this library's: throws DeviceError (prefixed by `who`) when the command needs a
/// larger build (a plan made for another bitstream), Error when it is malformed (kernel::check_command)
/// or reaches outside `arena` / `parameters`, or writes what it reads. Returns what it touches.
FPGACNN_API CommandFootprint check_command_fits(const std::string& who, const kernel::LayerCommand& command,
                                                const KernelMaxima& maxima, const DeviceBuffer& arena,
                                                const DeviceBuffer& parameters);

}  // namespace fpgacnn

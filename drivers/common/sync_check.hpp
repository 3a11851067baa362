// The check of the drivers' sync() whose device shares the buffers with the host (uio, rtl): the range
// lies inside the buffer and no running command is writing it.
#pragma once

#include <cstddef>
#include <string>

#include "fpgacnn/device.hpp"
#include "fpgacnn/drivers/command_footprint.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

/// What a running command writes: into `buffer` (null when no command runs), the range `output`.
struct RunningWrite {
    const DeviceMemory* buffer = nullptr;
    ByteSpan output;
    std::string command;  // its description, for the message
};

/// Throws Error (prefixed by `who`) when [offset, offset + bytes) is outside `memory` or overlaps what
/// `running` writes.
inline void check_sync(const std::string& who, const DeviceMemory& memory, std::size_t offset,
                       std::size_t bytes, const RunningWrite& running) {
    const ByteSpan span{offset, offset + bytes};
    if (span.end > memory.bytes) {
        throw Error(who + ": sync of bytes " + span.text() + " of '" + memory.purpose + "', which has " +
                    std::to_string(memory.bytes) + " bytes");
    }
    if (running.buffer == &memory && span.overlaps(running.output)) {
        throw Error(who + ": sync of '" + memory.purpose + "' bytes " + span.text() + " while " +
                    running.command + " is writing " + running.output.text() +
                    "; wait() for the command first");
    }
}

}  // namespace fpgacnn

// The register writes that hand one command to the IP (kernel/register_map.hpp): the 22 command
// words, then the five AXI master base addresses, every feature-map port (word- and byte-wide) given
// the arena. Shared by the drivers that write the IP's registers themselves (uio, rtl).
#pragma once

#include <cstdint>
#include <functional>

#include "fpgacnn/kernel/layer_command.hpp"

namespace fpgacnn {

/// One 32-bit register write at a byte offset of the IP's AXI-Lite space.
using RegisterWrite = std::function<void(std::uint32_t offset, std::uint32_t value)>;

/// Writes `command` and the buffers' bus addresses (64-bit addresses: low then high word; 32-bit: the
/// low word alone). Does not start the IP.
void write_command_registers(const kernel::LayerCommand& command, std::uint64_t arena,
                             std::uint64_t parameters, bool address64, const RegisterWrite& write);

}  // namespace fpgacnn

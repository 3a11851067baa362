// Where EmuOptions::bit_flip strikes: the arena element of a command's output that holds the first
// value of one output tile in one channel.
#pragma once

#include <cstddef>
#include <string>

#include "fpgacnn/drivers/emu_device.hpp"

namespace fpgacnn::emu {

/// The element (int16 index into the arena) `flip` corrupts in `command`'s output. Throws Error
/// naming `who` when the command is not a conv or maxpool or has no such channel or tile.
std::size_t bit_flip_element(const std::string& who, const EmuBitFlip& flip,
                             const kernel::LayerCommand& command);

}  // namespace fpgacnn::emu

// The drivers' check that a buffer handed to sync() or start() is one of their own and not empty,
// and the cast to the driver's memory type.
#pragma once

#include <memory>
#include <string>

#include "fpgacnn/device.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn {

/// The memory behind `buffer` as the driver's type `Memory`; throws Error (prefixed by `who`) when
/// the handle is empty (moved from or reset) or `owner` (the device's token) did not allocate it.
template <class Memory>
std::shared_ptr<Memory> owned_memory(const DeviceBuffer& buffer, const std::shared_ptr<const void>& owner,
                                     const std::string& who, const std::string& device_name) {
    const std::shared_ptr<DeviceMemory>& memory = buffer.memory();
    if (!memory) throw Error(who + ": the buffer handle is empty (moved from or reset)");
    if (memory->owner != owner) {
        throw Error(who + ": buffer '" + memory->purpose + "' does not belong to " + device_name +
                    " (it was allocated by another device)");
    }
    return std::static_pointer_cast<Memory>(memory);
}

}  // namespace fpgacnn

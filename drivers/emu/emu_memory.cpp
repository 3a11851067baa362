#include "emu/emu_memory.hpp"

#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::emu {

DeviceBuffer EmuMemory::allocate(std::size_t bytes, const std::string& purpose) {
    if (bytes == 0) throw Error("emu: cannot allocate an empty buffer for " + purpose);
    auto buffer = std::make_unique<EmuBuffer>();
    buffer->purpose = purpose;
    buffer->bytes = bytes;
    buffer->address = next_address_;
    next_address_ += (bytes + 4095) / 4096 * 4096;
    const std::size_t words = (bytes + 1) / 2;
    buffer->host.resize(words);
    buffer->device.resize(words);
    // Fresh DMA memory holds garbage on both sides: poison makes any use of it visible.
    std::memset(buffer->host_bytes(), poison_, words * 2);
    std::memset(buffer->device_bytes(), poison_, words * 2);

    DeviceBuffer handle;
    handle.id = next_id_++;
    handle.host = buffer->host.data();
    handle.device_address = buffer->address;
    handle.bytes = bytes;
    handle.purpose = purpose;
    buffers_.emplace(handle.id, std::move(buffer));
    return handle;
}

EmuBuffer& EmuMemory::get(const DeviceBuffer& buffer, const std::string& what) {
    const auto it = buffers_.find(buffer.id);
    if (it == buffers_.end() || it->second->host.data() != buffer.host) {
        throw Error(what + ": buffer '" + buffer.purpose + "' (id " + std::to_string(buffer.id) +
                    ") was not allocated by this emu device or was already freed");
    }
    return *it->second;
}

void EmuMemory::free(const DeviceBuffer& buffer) {
    get(buffer, "emu: free_buffer");
    buffers_.erase(buffer.id);
}

void EmuMemory::sync(EmuBuffer& buffer, SyncDirection direction, std::size_t offset, std::size_t bytes) {
    if (offset > buffer.bytes || bytes > buffer.bytes - offset) {
        throw Error("emu: sync of bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                    ") is outside buffer '" + buffer.purpose + "' of " + std::to_string(buffer.bytes) +
                    " bytes");
    }
    if (direction == SyncDirection::ToDevice) {
        std::memcpy(buffer.device_bytes() + offset, buffer.host_bytes() + offset, bytes);
        buffer.device_valid.insert(offset, offset + bytes);
    } else {
        std::memcpy(buffer.host_bytes() + offset, buffer.device_bytes() + offset, bytes);
    }
}

void EmuMemory::poison_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes) {
    std::memset(buffer.host_bytes() + offset, poison_, bytes);
}

}  // namespace fpgacnn::emu

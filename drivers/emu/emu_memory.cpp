#include "emu/emu_memory.hpp"

#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::emu {

std::shared_ptr<EmuBuffer> EmuMemory::allocate(std::size_t bytes, const std::string& purpose,
                                               const std::shared_ptr<const void>& owner) {
    if (bytes == 0) throw Error("emu: cannot allocate an empty buffer for " + purpose);
    auto buffer = std::make_shared<EmuBuffer>();
    const std::size_t words = (bytes + 1) / 2;
    buffer->host_copy.resize(words);
    buffer->device_copy.resize(words);
    // Fresh DMA memory holds garbage on both sides: poison makes any use of it visible.
    std::memset(buffer->host_bytes(), poison_, words * 2);
    std::memset(buffer->device_bytes(), poison_, words * 2);
    buffer->host = buffer->host_copy.data();
    buffer->device_address = next_address_;
    next_address_ += (bytes + 4095) / 4096 * 4096;
    buffer->bytes = bytes;
    buffer->purpose = purpose;
    buffer->owner = owner;
    return buffer;
}

void EmuMemory::sync(EmuBuffer& buffer, SyncDirection direction, std::size_t offset, std::size_t bytes) {
    if (offset > buffer.bytes || bytes > buffer.bytes - offset) {
        throw Error("emu: sync of bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                    ") is outside buffer '" + buffer.purpose + "' of " + std::to_string(buffer.bytes) +
                    " bytes");
    }
    if (buffer.host == nullptr) {
        throw Error("emu: sync of buffer '" + buffer.purpose +
                    "' after release_host_copy(): the host side was freed, nothing to sync");
    }
    if (direction == SyncDirection::ToDevice) {
        std::memcpy(buffer.device_bytes() + offset, buffer.host_bytes() + offset, bytes);
        buffer.device_valid.insert(offset, offset + bytes);
    } else {
        std::memcpy(buffer.host_bytes() + offset, buffer.device_bytes() + offset, bytes);
    }
}

void EmuMemory::release_host(EmuBuffer& buffer) {
    std::vector<int16_t>().swap(buffer.host_copy);  // clear() would keep the memory
    buffer.host = nullptr;
}

void EmuMemory::poison_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes) {
    if (buffer.host == nullptr) return;  // released: no host view to make stale
    std::memset(buffer.host_bytes() + offset, poison_, bytes);
}

}  // namespace fpgacnn::emu

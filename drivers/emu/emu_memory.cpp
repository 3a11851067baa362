#include "emu/emu_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::emu {

namespace {

std::size_t page_size() {
    static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

}  // namespace

void MappedPages::map(std::size_t bytes) {
    if (data_ != nullptr) throw Error("emu: internal error: a buffer side mapped twice");
    mapped_ = (bytes + page_size() - 1) / page_size() * page_size();
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        throw Error("emu: cannot map " + std::to_string(bytes) + " bytes of emulated DMA memory: " +
                    std::strerror(errno) + " (free memory, or use a smaller network / --input)");
    }
    data_ = static_cast<unsigned char*>(p);
}

MappedPages::~MappedPages() {
    if (data_ != nullptr) munmap(data_, mapped_);
}

void MappedPages::discard(std::size_t offset, std::size_t bytes) {
    const std::size_t page = page_size();
    const std::size_t first = (offset + page - 1) / page * page;
    const std::size_t last = std::min(mapped_, (offset + bytes) / page * page);
    // Private anonymous pages: MADV_DONTNEED frees them, and they read as zero if touched again.
    if (first < last) madvise(data_ + first, last - first, MADV_DONTNEED);
}

std::shared_ptr<EmuBuffer> EmuMemory::allocate(std::size_t bytes, BufferRole role, const std::string& purpose,
                                               const std::shared_ptr<const void>& owner) {
    if (bytes == 0) throw Error("emu: cannot allocate an empty buffer for " + purpose);
    auto buffer = std::make_shared<EmuBuffer>();
    const std::size_t words = (bytes + 1) / 2;  // the kernel reads int16 words
    buffer->host_side.map(words * 2);
    buffer->device_side.map(words * 2);
    // Fresh DMA memory holds garbage: poison makes any use of it visible (see the header for why the
    // host side of parameters is left as untouched zero pages).
    if (role != BufferRole::Parameters) std::memset(buffer->host_bytes(), poison_, words * 2);
    std::memset(buffer->device_bytes(), poison_, words * 2);
    buffer->host = buffer->host_bytes();
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
    if (const auto released = buffer.host_released.first_present(offset, offset + bytes)) {
        throw Error("emu: sync of buffer '" + buffer.purpose + "' bytes [" + std::to_string(offset) + ", " +
                    std::to_string(offset + bytes) + ") after release_host_copy() gave up byte " +
                    std::to_string(*released) + ": the host side was freed, nothing to sync");
    }
    if (direction == SyncDirection::ToDevice) {
        std::memcpy(buffer.device_bytes() + offset, buffer.host_bytes() + offset, bytes);
        buffer.device_valid.insert(offset, offset + bytes);
    } else {
        std::memcpy(buffer.host_bytes() + offset, buffer.device_bytes() + offset, bytes);
    }
}

void EmuMemory::release_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes) {
    if (offset > buffer.bytes || bytes > buffer.bytes - offset) {
        throw Error("emu: release_host_copy of bytes [" + std::to_string(offset) + ", " +
                    std::to_string(offset + bytes) + ") is outside buffer '" + buffer.purpose + "' of " +
                    std::to_string(buffer.bytes) + " bytes");
    }
    buffer.host_released.insert(offset, offset + bytes);
    buffer.host_side.discard(offset, bytes);
}

void EmuMemory::poison_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes) {
    if (buffer.host_released.first_present(offset, offset + bytes)) return;  // no host view to make stale
    std::memset(buffer.host_bytes() + offset, poison_, bytes);
}

}  // namespace fpgacnn::emu

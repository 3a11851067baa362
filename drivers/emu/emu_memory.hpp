// The emu device's memory: every DMA buffer exists twice, as the host sees it and as the kernel
// sees it; sync() copies between the two and records which device bytes hold valid data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "emu/range_set.hpp"
#include "fpgacnn/device.hpp"

namespace fpgacnn::emu {

/// Anonymous pages for one side of a buffer: untouched pages cost no memory, and discard() gives
/// whole pages back to the system (they read as zero afterwards), which a std::vector cannot do.
class MappedPages {
public:
    MappedPages() = default;
    ~MappedPages();
    MappedPages(const MappedPages&) = delete;
    MappedPages& operator=(const MappedPages&) = delete;

    /// Maps `bytes` (once per object); throws Error when the system refuses.
    void map(std::size_t bytes);
    unsigned char* data() const { return data_; }
    /// Returns the whole pages inside [offset, offset + bytes) to the system.
    void discard(std::size_t offset, std::size_t bytes);

private:
    unsigned char* data_ = nullptr;
    std::size_t mapped_ = 0;
};

/// One buffer: DeviceMemory::host points at the host side; freed with the object.
struct EmuBuffer final : DeviceMemory {
    MappedPages host_side;
    MappedPages device_side;  // int16 storage: the kernel reads it as int16 words
    RangeSet device_valid;    // synced to the device or written by a command
    RangeSet host_released;   // given up by release_host_copy: syncs touching it are refused

    unsigned char* host_bytes() const { return host_side.data(); }
    unsigned char* device_bytes() const { return device_side.data(); }
    int16_t* device_words() const { return reinterpret_cast<int16_t*>(device_side.data()); }
};

class EmuMemory {
public:
    explicit EmuMemory(std::uint8_t poison_byte) : poison_(poison_byte) {}

    /// A buffer owned by `owner` (the device's token), both sides poisoned, except the host side of
    /// parameters: the host only writes those (write_parameters fills every byte it syncs) and
    /// releases them layer by layer, so poisoning all of it would make the whole buffer resident on
    /// the host at once, the double copy a board's memory budget cannot afford.
    std::shared_ptr<EmuBuffer> allocate(std::size_t bytes, BufferRole role, const std::string& purpose,
                                        const std::shared_ptr<const void>& owner);
    void sync(EmuBuffer& buffer, SyncDirection direction, std::size_t offset, std::size_t bytes);
    /// The host's view of bytes the kernel wrote is stale until synced back: make that visible.
    void poison_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes);
    /// Device::release_host_copy: frees the host side of those bytes; sync() of them is refused.
    static void release_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes);
    std::uint8_t poison_byte() const { return poison_; }

private:
    std::uint8_t poison_;
    std::uint64_t next_address_ = 0x10000000;
};

}  // namespace fpgacnn::emu

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

/// One buffer: DeviceMemory::host points at `host_copy` (null once released); freed with the object.
struct EmuBuffer final : DeviceMemory {
    std::vector<int16_t> host_copy;  // int16 storage: the kernel reads the device copy as int16
    std::vector<int16_t> device_copy;
    RangeSet device_valid;  // synced to the device or written by a command

    unsigned char* host_bytes() { return reinterpret_cast<unsigned char*>(host_copy.data()); }
    unsigned char* device_bytes() { return reinterpret_cast<unsigned char*>(device_copy.data()); }
};

class EmuMemory {
public:
    explicit EmuMemory(std::uint8_t poison_byte) : poison_(poison_byte) {}

    /// A buffer owned by `owner` (the device's token), both copies poisoned.
    std::shared_ptr<EmuBuffer> allocate(std::size_t bytes, const std::string& purpose,
                                        const std::shared_ptr<const void>& owner);
    void sync(EmuBuffer& buffer, SyncDirection direction, std::size_t offset, std::size_t bytes);
    /// The host's view of bytes the kernel wrote is stale until synced back: make that visible.
    void poison_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes);
    /// Device::release_host_copy: frees the host copy; host becomes null and sync() refuses.
    static void release_host(EmuBuffer& buffer);
    std::uint8_t poison_byte() const { return poison_; }

private:
    std::uint8_t poison_;
    std::uint64_t next_address_ = 0x10000000;
};

}  // namespace fpgacnn::emu

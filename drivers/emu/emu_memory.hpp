// The emu device's memory: every DMA buffer exists twice, as the host sees it and as the kernel
// sees it; sync() copies between the two and records which device bytes hold valid data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emu/range_set.hpp"
#include "fpgacnn/device.hpp"

namespace fpgacnn::emu {

struct EmuBuffer {
    std::string purpose;
    std::size_t bytes = 0;
    std::uint64_t address = 0;
    std::vector<int16_t> host;  // int16 storage: the kernel reads the device copy as int16
    std::vector<int16_t> device;
    RangeSet device_valid;  // synced to the device or written by a command

    unsigned char* host_bytes() { return reinterpret_cast<unsigned char*>(host.data()); }
    unsigned char* device_bytes() { return reinterpret_cast<unsigned char*>(device.data()); }
};

class EmuMemory {
public:
    explicit EmuMemory(std::uint8_t poison_byte) : poison_(poison_byte) {}

    DeviceBuffer allocate(std::size_t bytes, const std::string& purpose);
    void free(const DeviceBuffer& buffer);
    /// The buffer behind a handle; throws Error (prefixed by `what`) for handles it did not hand out.
    EmuBuffer& get(const DeviceBuffer& buffer, const std::string& what);
    void sync(EmuBuffer& buffer, SyncDirection direction, std::size_t offset, std::size_t bytes);
    /// The host's view of bytes the kernel wrote is stale until synced back: make that visible.
    void poison_host(EmuBuffer& buffer, std::size_t offset, std::size_t bytes);
    std::uint8_t poison_byte() const { return poison_; }

private:
    std::uint8_t poison_;
    int next_id_ = 1;
    std::uint64_t next_address_ = 0x10000000;
    std::map<int, std::unique_ptr<EmuBuffer>> buffers_;
};

}  // namespace fpgacnn::emu

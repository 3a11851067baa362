// One u-dma-buf device (github.com/ikwzm/udmabuf): a physically contiguous CMA buffer allocated
// when the module loads, mmap'ed from /dev/udmabufN, its bus address in
// /sys/class/u-dma-buf/udmabufN/phys_addr. Cache maintenance of a range: write sync_offset,
// sync_size and sync_direction (1 = to device, 2 = from device), then 1 to sync_for_device (the
// CPU's writes reach DDR) or sync_for_cpu (stale cache lines are dropped before the CPU reads).
// The driver sub-allocates the arena, the parameters and scratch buffers from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "fpgacnn/device.hpp"

namespace fpgacnn::uio {

/// u-dma-buf device names under <root>/sys/class/u-dma-buf, sorted.
std::vector<std::string> list_udmabufs(const std::string& root);

class UdmaBuf {
public:
    /// Opens `name` ("udmabuf0"; empty: the first present). Throws Error with the fix when absent.
    UdmaBuf(const std::string& root, const std::string& name);
    ~UdmaBuf();
    UdmaBuf(const UdmaBuf&) = delete;
    UdmaBuf& operator=(const UdmaBuf&) = delete;

    const std::string& name() const { return name_; }
    std::size_t bytes() const { return bytes_; }
    std::uint64_t phys_addr() const { return phys_addr_; }
    std::uint8_t* base() const { return base_; }

    /// A sub-range of `bytes` (4 KiB aligned), or throws DeviceError saying how full the buffer is
    /// and how to make it bigger. allocate / release / bytes_in_use are thread-safe (buffers are
    /// released when their handles go, on any thread).
    std::size_t allocate(std::size_t bytes, const std::string& purpose);
    void release(std::size_t offset);
    std::size_t bytes_in_use() const;

    /// Cache maintenance of [offset, offset + bytes) of the whole u-dma-buf.
    void sync(SyncDirection direction, std::size_t offset, std::size_t bytes);

private:
    std::size_t in_use() const;  // under mutex_

    std::string root_;
    std::string name_;
    std::string sys_dir_;
    std::size_t bytes_ = 0;
    std::uint64_t phys_addr_ = 0;
    std::uint8_t* base_ = nullptr;
    mutable std::mutex mutex_;
    std::map<std::size_t, std::size_t> used_;  // offset -> bytes, sorted by offset
};

}  // namespace fpgacnn::uio

#include "uio/udmabuf.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "fpgacnn/error.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/sysfs_file.hpp"
#include "uio/cma_info.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::uio {

namespace {

constexpr std::size_t kAlignment = 4096;  // page: AXI bursts never cross 4 KiB, caches work per line

std::size_t round_up(std::size_t n) { return align_up(n, kAlignment); }

}  // namespace

std::vector<std::string> list_udmabufs(const std::string& root) {
    std::vector<std::string> names;
    std::error_code error;
    for (const fs::directory_entry& entry :
         fs::directory_iterator(sysfs::under_root(root, "sys/class/u-dma-buf"), error))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

UdmaBuf::UdmaBuf(const std::string& root, const std::string& name) : root_(root), name_(name) {
    if (name_.empty()) {
        const std::vector<std::string> present = list_udmabufs(root);
        if (present.empty()) {
            throw DeviceError(
                "no u-dma-buf device under " + sysfs::under_root(root, "sys/class/u-dma-buf") +
                ": the IP needs physically contiguous DMA buffers; " +
                udmabuf_size_advice(32u << 20, read_cma_info(root)) +
                ". (/dev/dma_heap buffers cannot replace it: without a kernel driver importing them, "
                "user space cannot learn their bus address; docs/drivers.md)");
        }
        name_ = present.front();
    }
    sys_dir_ = sysfs::under_root(root, "sys/class/u-dma-buf/" + name_);
    const std::string size_file = sys_dir_ + "/size", phys_file = sys_dir_ + "/phys_addr";
    bytes_ = sysfs::parse_number(sysfs::require_attribute(size_file, "u-dma-buf size"), size_file);
    phys_addr_ =
        sysfs::parse_number(sysfs::require_attribute(phys_file, "u-dma-buf physical address"), phys_file);
    const std::string dev = sysfs::under_root(root, "dev/" + name_);
    // Without O_SYNC the CPU caches the buffer (fast) and sync() does the cache maintenance.
    const int fd = ::open(dev.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) throw DeviceError("cannot open " + dev + ": " + std::strerror(errno));
    void* base = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int saved = errno;
    ::close(fd);
    if (base == MAP_FAILED) {
        throw DeviceError("cannot map the " + std::to_string(bytes_) + " bytes of " + dev + ": " +
                          std::strerror(saved));
    }
    base_ = static_cast<std::uint8_t*>(base);
}

UdmaBuf::~UdmaBuf() { ::munmap(base_, bytes_); }

std::size_t UdmaBuf::allocate(std::size_t bytes, const std::string& purpose) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t need = round_up(std::max<std::size_t>(bytes, 1));
    std::size_t candidate = 0;  // first fit between the allocations, in offset order
    for (const auto& [offset, size] : used_) {
        if (offset - candidate >= need) break;
        candidate = offset + round_up(size);
    }
    if (candidate + need > bytes_) {
        throw DeviceError(name_ + ": no room for '" + purpose + "' (" + std::to_string(bytes) +
                          " bytes): the " + std::to_string(bytes_) + "-byte u-dma-buf has " +
                          std::to_string(in_use()) + " bytes in use; " +
                          udmabuf_size_advice(in_use() + need, read_cma_info(root_), bytes_));
    }
    used_[candidate] = bytes;
    return candidate;
}

void UdmaBuf::release(std::size_t offset) {
    std::lock_guard<std::mutex> lock(mutex_);
    used_.erase(offset);
}

std::size_t UdmaBuf::bytes_in_use() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return in_use();
}

std::size_t UdmaBuf::in_use() const {
    std::size_t total = 0;
    for (const auto& entry : used_) total += round_up(entry.second);
    return total;
}

void UdmaBuf::sync(SyncDirection direction, std::size_t offset, std::size_t bytes) {
    const bool to_device = direction == SyncDirection::ToDevice;
    sysfs::write_attribute(sys_dir_ + "/sync_offset", std::to_string(offset));
    sysfs::write_attribute(sys_dir_ + "/sync_size", std::to_string(bytes));
    sysfs::write_attribute(sys_dir_ + "/sync_direction",
                           to_device ? "1" : "2");  // DMA_TO_DEVICE / DMA_FROM_DEVICE
    sysfs::write_attribute(sys_dir_ + (to_device ? "/sync_for_device" : "/sync_for_cpu"), "1");
}

}  // namespace fpgacnn::uio

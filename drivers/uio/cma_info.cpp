#include "uio/cma_info.hpp"

#include <fstream>
#include <sstream>

#include "fpgacnn/sysfs_file.hpp"

namespace fpgacnn::uio {

namespace {

std::string mib(std::uint64_t bytes) { return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB"; }

}  // namespace

std::optional<CmaInfo> read_cma_info(const std::string& root) {
    std::ifstream meminfo(sysfs::under_root(root, "proc/meminfo"));
    std::string line;
    std::optional<std::uint64_t> total, free;
    while (std::getline(meminfo, line)) {
        std::istringstream fields(line);
        std::string key;
        std::uint64_t kib = 0;
        fields >> key >> kib;
        if (key == "CmaTotal:") total = kib * 1024;
        if (key == "CmaFree:") free = kib * 1024;
    }
    if (!total || !free) return std::nullopt;
    return CmaInfo{*total, *free};
}

std::string cma_text(const std::optional<CmaInfo>& cma) {
    if (!cma) return "no CMA in /proc/meminfo";
    return "CmaTotal " + mib(cma->total_bytes) + ", CmaFree " + mib(cma->free_bytes);
}

std::string udmabuf_size_advice(std::uint64_t needed, const std::optional<CmaInfo>& cma,
                                std::uint64_t reserved) {
    const std::uint64_t size = ((needed + (1u << 20) - 1) >> 20) << 20;  // whole MiB
    std::ostringstream hex;
    hex << std::hex << size;
    std::string advice = "give u-dma-buf at least " + mib(size) + " (device tree: size = <0x" + hex.str() +
                         ">; or modprobe u-dma-buf udmabuf0=" + std::to_string(size) + ")";
    // u-dma-buf takes its buffer from CMA when it loads: the pool must have that much free (a
    // reloaded u-dma-buf first returns what it holds).
    const std::uint64_t available = cma ? cma->free_bytes + reserved : 0;
    if (available < size) {
        // Grow the pool by what is missing (others use CMA too), plus headroom.
        const std::uint64_t pool = (cma ? cma->total_bytes : 0) + (size - available) + (16u << 20);
        advice += "; the CMA pool cannot hold that (" + cma_text(cma) +
                  "): boot with cma=" + std::to_string((pool + (1u << 20) - 1) >> 20) +
                  "M (bootargs in the device tree or U-Boot's uEnv.txt)";
    }
    return advice;
}

}  // namespace fpgacnn::uio

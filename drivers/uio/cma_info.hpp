// The kernel's contiguous memory pool (CMA), where u-dma-buf takes its buffers from: CmaTotal and
// CmaFree of /proc/meminfo, and the advice to give when it is too small.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace fpgacnn::uio {

struct CmaInfo {
    std::uint64_t total_bytes = 0;
    std::uint64_t free_bytes = 0;
};

/// From <root>/proc/meminfo; nullopt when the kernel reports no CMA (built without it).
std::optional<CmaInfo> read_cma_info(const std::string& root);

/// "CmaTotal 64 MiB, CmaFree 12 MiB" or "no CMA in /proc/meminfo".
std::string cma_text(const std::optional<CmaInfo>& cma);

/// How to get a u-dma-buf of `needed` bytes: the module parameter / device-tree size, and the
/// cma= boot argument when CmaFree plus what a loaded u-dma-buf holds (`reserved`) is smaller.
std::string udmabuf_size_advice(std::uint64_t needed, const std::optional<CmaInfo>& cma,
                                std::uint64_t reserved = 0);

}  // namespace fpgacnn::uio

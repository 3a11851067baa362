// The process's peak resident set size (getrusage's ru_maxrss), for fpgacnn-bench's memory line.
#pragma once

#include <cstdint>

#include <sys/resource.h>

namespace fpgacnn::bench {

/// Peak RSS of this process so far, in bytes (Linux reports ru_maxrss in KiB).
inline std::uint64_t peak_rss_bytes() {
    rusage usage{};
    if (::getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace fpgacnn::bench

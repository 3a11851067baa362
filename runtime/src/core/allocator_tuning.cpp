#include "fpgacnn/allocator_tuning.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fpgacnn {

namespace {

// glibc refuses an M_MMAP_THRESHOLD above HEAP_MAX_SIZE / 2: 32 MiB where long has 64 bits, 16 MiB
// on 32-bit boards (armhf).
constexpr int kMmapThreshold = sizeof(long) >= 8 ? 32 << 20 : 16 << 20;

bool user_tuned_allocator() {
    for (const char* variable : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_",
                                 "MALLOC_ARENA_MAX", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_"}) {
        if (std::getenv(variable) != nullptr) return true;
    }
    return false;
}

}  // namespace

std::string tune_allocator_for_frames() {
#if defined(__GLIBC__)
    if (user_tuned_allocator()) return "allocator: left as the environment sets it";
    const int arenas = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
    // Setting the mmap threshold also stops glibc's own adjustment of both thresholds.
    const bool done = mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
                      mallopt(M_TRIM_THRESHOLD, 2 * kMmapThreshold) == 1 && mallopt(M_ARENA_MAX, arenas) == 1;
    if (!done) return "allocator: glibc refused the frame settings; its defaults stay";
    return "allocator: blocks below " + std::to_string(kMmapThreshold >> 20) + " MiB stay in the heap, " +
           std::to_string(arenas) + " arenas";
#else
    return "allocator: not glibc, left alone";
#endif
}

}  // namespace fpgacnn

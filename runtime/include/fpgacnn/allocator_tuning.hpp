// How a process that streams frames should set up glibc's allocator. Every frame allocates and
// frees buffers of megabytes (a 768x576 image is 5.3 MB of floats); with glibc's defaults such a
// buffer is returned to the kernel when it is freed and faulted in again, page by page, for the
// next frame. On a virtual machine that cost fpgacnn-serve 55 ms of CPU per request instead of 8.
#pragma once

#include <string>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// Keeps freed frame-sized blocks in the heap for the next frame: the mmap threshold at glibc's
/// maximum (32 MiB on 64-bit, 16 MiB on 32-bit), the trim threshold at twice that, and one
/// allocator arena per core, so that what the process keeps is bounded by cores x twice the
/// threshold. Call it once the model is loaded, before the frames start: set earlier, the loaders'
/// large temporary blocks would stay in the heap and raise the peak footprint (tests/memory
/// measures it). Leaves the allocator alone when the user set any of it (MALLOC_*_ environment
/// variables, GLIBC_TUNABLES) and where the C library is not glibc. Returns what it did, for a
/// debug log line.
FPGACNN_API std::string tune_allocator_for_frames();

}  // namespace fpgacnn

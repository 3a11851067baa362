// Linked into test_xrt only in AddressSanitizer builds (FPGACNN_SANITIZE contains "address").
// XRT 2.13's libxrt_coreutil calls aligned_alloc(4096, 640) when it creates a run: a size that is
// not a multiple of the alignment, undefined in C11, accepted by glibc, but fatal under ASan
// ("invalid-aligned-alloc-alignment"), which has no option or suppression for it. This definition
// in the executable takes precedence over the sanitizer's and forwards to posix_memalign, which
// ASan intercepts and checks like any allocation (leaks, overflows, frees) and which allows any
// size. Only the size-rule check is given up, for every caller in the test process.
// Default visibility: the project compiles with -fvisibility=hidden, and a hidden definition is not
// exported from the executable, so libxrt_coreutil would bind to glibc's aligned_alloc and later hand
// glibc's memory to ASan's free ("attempting free on address which was not malloc()-ed").
#include <stdlib.h>

extern "C" __attribute__((visibility("default"))) void* aligned_alloc(size_t alignment, size_t size) {
    void* p = nullptr;
    return posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}

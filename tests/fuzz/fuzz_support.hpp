// Shared by the libFuzzer harnesses: a file the runtime's loaders can open that holds the fuzz input
// (a memfd, so no disk I/O; /proc/self/fd/N is a regular file to stat()), and process-wide setup.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/logging.hpp"

namespace fpgacnn::fuzz {

/// Keeps the harnesses inside libFuzzer's 2 GB RSS limit and deterministic: the memory budget is
/// fixed (no /proc/meminfo), logs are quiet. OpenCV's own pixel limit is not lowered (it is read when
/// the library loads, and it would hide a header check that lets a large image through).
inline void setup_process() {
    ::setenv("FPGACNN_MEMORY_LIMIT", "512M", 1);
    set_log_level(LogLevel::Quiet);
}

class MemoryFile {
public:
    MemoryFile() : fd_(::memfd_create("fpgacnn-fuzz", 0)) {
        if (fd_ < 0) std::abort();
        path_ = "/proc/self/fd/" + std::to_string(fd_);
    }
    ~MemoryFile() { ::close(fd_); }
    MemoryFile(const MemoryFile&) = delete;
    MemoryFile& operator=(const MemoryFile&) = delete;

    /// Replaces the content with `size` bytes and returns the path to open.
    const std::string& hold(const std::uint8_t* data, std::size_t size) {
        if (::ftruncate(fd_, 0) != 0) std::abort();
        std::size_t done = 0;
        while (done < size) {
            const ssize_t wrote = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (wrote <= 0) std::abort();
            done += static_cast<std::size_t>(wrote);
        }
        return path_;
    }

private:
    int fd_;
    std::string path_;
};

/// For the file-reading harnesses: the harness network (tests/fuzz/data/tiny.cfg) parsed without
/// weights, and the memory file the inputs go through. Made once, on the first call.
struct FileHarness {
    Network cfg_only = load_darknet_cfg(std::string(FPGACNN_FUZZ_DATA_DIR) + "/tiny.cfg");
    MemoryFile file;
};

inline FileHarness& file_harness() {
    static auto* harness = new FileHarness();  // never destroyed: libFuzzer exits without unwinding
    return *harness;
}

}  // namespace fpgacnn::fuzz

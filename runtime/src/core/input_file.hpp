// The one way the runtime opens an input file (cfg, weights, names, quantized model, image).
// Only regular files are accepted: a FIFO, a socket or a character device (/dev/zero,
// /dev/urandom, a tty) either blocks open()/read() forever or never ends, so "read the whole file"
// cannot be bounded. The check is made twice: stat() before open() so a FIFO is refused without
// blocking, and fstat() on the descriptor (opened with O_NONBLOCK) so a path swapped between the two
// calls is refused too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fpgacnn::core {

/// What the file is for, used in every message: "cfg file", "check the path given with --cfg".
struct InputFileRole {
    const char* what;  // "cfg file", "weights file", ...
    const char* hint;  // what to check when it cannot be opened
};

/// An open regular file (read-only, closed on destruction).
class InputFile {
public:
    /// Throws Error naming the path and role when the path does not exist, is not a regular file
    /// (naming what it is instead), or cannot be opened.
    InputFile(const std::string& path, InputFileRole role);
    ~InputFile();
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;

    const std::string& path() const { return path_; }
    /// The size fstat() reported when the file was opened.
    std::uint64_t size() const { return size_; }

    /// Reads exactly `bytes` bytes at the current position; throws Error when the file ends first
    /// (it was truncated while being read) or on an I/O error.
    void read_exact(void* destination, std::size_t bytes);
    /// Moves the read position to `offset` bytes from the start.
    void seek(std::uint64_t offset);
    /// The whole file; throws Error when it is larger than `max_bytes`, quoting `why_limit`.
    std::vector<std::uint8_t> read_all(std::uint64_t max_bytes, const char* why_limit);

private:
    std::string path_;
    InputFileRole role_;
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

/// Text input files are small; a cap turns "/dev/zero", a weights file passed as --cfg or a
/// runaway generator into an immediate error instead of gigabytes read into memory.
constexpr std::uint64_t kMaxCfgBytes = 4u << 20;    // real cfgs are 2-30 KB
constexpr std::uint64_t kMaxNamesBytes = 4u << 20;  // 9418 ImageNet classes take 100 KB

/// The whole file as text, refused above `max_bytes` (the message gives the cap and `why_limit`).
std::string read_text_file(const std::string& path, InputFileRole role, std::uint64_t max_bytes,
                           const char* why_limit);

}  // namespace fpgacnn::core

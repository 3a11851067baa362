// The IP's AXI-Lite registers: map0 of a UIO node mmap'ed from /dev/uioN (offset 0 selects map0).
// Accesses are single aligned 32-bit loads and stores (atomic builtins: the compiler neither splits
// nor merges them, and they order against the DMA buffers the IP reads).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fpgacnn::uio {

class RegisterWindow {
public:
    /// Maps `bytes` of `dev_path` and takes an exclusive lock on it (flock: one process drives the IP
    /// at a time). Throws Error naming the file (permissions, size, locked by another process).
    RegisterWindow(const std::string& dev_path, std::size_t bytes);
    ~RegisterWindow();
    RegisterWindow(const RegisterWindow&) = delete;
    RegisterWindow& operator=(const RegisterWindow&) = delete;

    std::uint32_t read(std::uint32_t offset) const;
    void write(std::uint32_t offset, std::uint32_t value);
    std::size_t bytes() const { return bytes_; }

private:
    std::uint32_t* word(std::uint32_t offset) const;
    int fd_ = -1;
    void* base_ = nullptr;
    std::size_t bytes_ = 0;
    std::string path_;
};

}  // namespace fpgacnn::uio

#include "uio/register_window.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::uio {

RegisterWindow::RegisterWindow(const std::string& dev_path, std::size_t bytes)
    : bytes_(bytes), path_(dev_path) {
    fd_ = ::open(dev_path.c_str(), O_RDWR | O_SYNC | O_CLOEXEC);
    if (fd_ < 0) {
        const int saved = errno;
        throw DeviceError(
            "cannot open " + dev_path + ": " + std::strerror(saved) +
            (saved == EACCES ? " (install the udev rule of docs/drivers.md or run as root)" : ""));
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
        const int saved = errno;
        ::close(fd_);
        throw DeviceError(dev_path + " is in use by another process (" + std::strerror(saved) +
                          "): one process drives the IP at a time");
    }
    base_ = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (base_ == MAP_FAILED) {
        const int saved = errno;
        base_ = nullptr;
        ::close(fd_);
        throw DeviceError("cannot map " + std::to_string(bytes) + " bytes of registers from " + dev_path +
                          ": " + std::strerror(saved));
    }
}

RegisterWindow::~RegisterWindow() {
    ::munmap(base_, bytes_);
    ::close(fd_);  // drops the lock
}

std::uint32_t* RegisterWindow::word(std::uint32_t offset) const {
    if (offset % 4 != 0 || offset + 4 > bytes_) {
        throw DeviceError(path_ + ": register offset " + std::to_string(offset) + " outside the " +
                          std::to_string(bytes_) + "-byte window");
    }
    return static_cast<std::uint32_t*>(base_) + offset / 4;
}

std::uint32_t RegisterWindow::read(std::uint32_t offset) const {
    return __atomic_load_n(word(offset), __ATOMIC_ACQUIRE);
}

void RegisterWindow::write(std::uint32_t offset, std::uint32_t value) {
    __atomic_store_n(word(offset), value, __ATOMIC_RELEASE);
}

}  // namespace fpgacnn::uio

#include "uio/uio_interrupt.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::uio {

std::unique_ptr<UioInterrupt> UioInterrupt::open(const std::string& dev_path, std::string& why_not) {
    struct stat info {};
    if (::stat(dev_path.c_str(), &info) != 0) {
        why_not = dev_path + ": " + std::strerror(errno);
        return nullptr;
    }
    if (S_ISCHR(info.st_mode)) {
        const int fd = ::open(dev_path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            why_not = dev_path + ": " + std::strerror(errno);
            return nullptr;
        }
        return std::unique_ptr<UioInterrupt>(new UioInterrupt(fd, fd, dev_path));
    }
    const std::string irq = dev_path + ".irq", rearm = dev_path + ".rearm";
    const int read_fd = ::open(irq.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (read_fd < 0) {
        why_not = dev_path + " is not a character device and has no " + irq;
        return nullptr;
    }
    const int write_fd = ::open(rearm.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);  // ENXIO: no reader
    if (write_fd < 0) {
        why_not = rearm + ": " + std::strerror(errno);
        ::close(read_fd);
        return nullptr;
    }
    return std::unique_ptr<UioInterrupt>(new UioInterrupt(read_fd, write_fd, irq + " + " + rearm));
}

UioInterrupt::UioInterrupt(int read_fd, int write_fd, std::string description)
    : read_fd_(read_fd), write_fd_(write_fd), description_(std::move(description)) {}

UioInterrupt::~UioInterrupt() {
    if (write_fd_ != read_fd_) ::close(write_fd_);
    ::close(read_fd_);
}

void UioInterrupt::drain() {
    std::uint32_t count = 0;
    while (::read(read_fd_, &count, sizeof(count)) == static_cast<ssize_t>(sizeof(count))) {
    }
}

void UioInterrupt::arm() {
    const std::uint32_t enable = 1;
    if (::write(write_fd_, &enable, sizeof(enable)) != static_cast<ssize_t>(sizeof(enable))) {
        throw DeviceError(description_ + ": cannot unmask the interrupt: " + std::strerror(errno) +
                          " (the UIO device is gone or its driver has no irqcontrol)");
    }
}

InterruptWait UioInterrupt::wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        pollfd p{read_fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(0, left.count())));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) return InterruptWait::Gone;
        if (ready == 0) return InterruptWait::TimedOut;
        if ((p.revents & POLLIN) != 0) {
            std::uint32_t count = 0;
            const ssize_t got = ::read(read_fd_, &count, sizeof(count));
            if (got == static_cast<ssize_t>(sizeof(count))) return InterruptWait::Fired;
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return InterruptWait::Gone;
            continue;  // spurious wake-up
        }
        return InterruptWait::Gone;  // POLLERR / POLLHUP: unbound device, or the simulator exited
    }
}

}  // namespace fpgacnn::uio

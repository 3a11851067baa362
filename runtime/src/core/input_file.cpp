#include "core/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::core {

namespace {

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string prefix(const std::string& path, const InputFileRole& role) { return path + ": the " + role.what; }

void require_regular(const std::string& path, const InputFileRole& role, mode_t mode) {
    if (S_ISREG(mode)) return;
    const std::string why = S_ISDIR(mode) ? ""
                                          : " (pipes, sockets and devices are refused: reading them can "
                                            "block forever or never end; copy the data to a file first)";
    throw Error(prefix(path, role) + " is not a regular file: it is " + kind_of(mode) + why + "; " +
                role.hint);
}

}  // namespace

InputFile::InputFile(const std::string& path, InputFileRole role) : path_(path), role_(role) {
    struct stat before {};
    if (::stat(path.c_str(), &before) != 0) {
        const int error = errno;
        if (error == ENOENT || error == ENOTDIR) {
            throw Error(prefix(path, role) + " does not exist; " + role.hint);
        }
        throw Error(prefix(path, role) + " cannot be read (" + std::strerror(error) + "); " + role.hint);
    }
    require_regular(path, role, before.st_mode);
    // O_NONBLOCK: if the path became a FIFO after stat(), open() returns instead of waiting for a writer.
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
        throw Error(prefix(path, role) + " cannot be opened (" + std::strerror(errno) +
                    "); check its permissions; " + role.hint);
    }
    struct stat opened {};
    if (::fstat(fd_, &opened) != 0 || !S_ISREG(opened.st_mode)) {
        const mode_t mode = opened.st_mode;
        ::close(fd_);
        fd_ = -1;
        require_regular(path, role, mode);
        throw Error(prefix(path, role) + " cannot be examined (" + std::strerror(errno) + ")");
    }
    // Regular files ignore O_NONBLOCK, but clear it so reads are plain blocking reads everywhere.
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
    size_ = static_cast<std::uint64_t>(opened.st_size);
}

InputFile::~InputFile() {
    if (fd_ >= 0) ::close(fd_);
}

void InputFile::read_exact(void* destination, std::size_t bytes) {
    auto* out = static_cast<char*>(destination);
    std::size_t done = 0;
    while (done < bytes) {
        const ssize_t got = ::read(fd_, out + done, bytes - done);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            throw Error(prefix(path_, role_) + ": read error after " + std::to_string(done) + " bytes (" +
                        std::strerror(errno) + ")");
        }
        if (got == 0) {
            throw Error(prefix(path_, role_) + " ended early: " + std::to_string(bytes - done) +
                        " bytes missing (was it changed or truncated while being read?)");
        }
        done += static_cast<std::size_t>(got);
    }
}

void InputFile::seek(std::uint64_t offset) {
    if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0) {
        throw Error(prefix(path_, role_) + ": cannot seek to byte " + std::to_string(offset) + " (" +
                    std::strerror(errno) + ")");
    }
}

std::vector<std::uint8_t> InputFile::read_all(std::uint64_t max_bytes, const char* why_limit) {
    if (size_ > max_bytes) {
        throw Error(prefix(path_, role_) + " has " + std::to_string(size_) + " bytes, more than the " +
                    std::to_string(max_bytes) + "-byte limit (" + why_limit + "); " + role_.hint);
    }
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size_));
    seek(0);
    read_exact(bytes.data(), bytes.size());
    return bytes;
}

std::string read_text_file(const std::string& path, InputFileRole role, std::uint64_t max_bytes,
                           const char* why_limit) {
    InputFile file(path, role);
    const std::vector<std::uint8_t> bytes = file.read_all(max_bytes, why_limit);
    return {bytes.begin(), bytes.end()};
}

}  // namespace fpgacnn::core

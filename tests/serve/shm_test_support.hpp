// What the system shared-memory tests share: a POSIX shared-memory object the test creates and fills as
// a client does (shm_open, ftruncate, mmap read-write), unlinked when the test is done so nothing is
// left in /dev/shm, and what /proc tells about the mappings and descriptors this process holds of it.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace fpgacnn::serve::test_support {

/// A shared-memory object of its own (a name with this process's id and a counter, so concurrent test
/// runs never meet), mapped read-write for the test to fill; unmapped and unlinked when destroyed.
class ShmObject {
public:
    explicit ShmObject(std::size_t size) : key_(unique_key()), size_(size) {
        const int fd = shm_open(key_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) throw std::runtime_error("shm_open " + key_ + ": " + std::strerror(errno));
        if (ftruncate(fd, static_cast<off_t>(size)) != 0) {
            const std::string reason = std::strerror(errno);
            close(fd);
            shm_unlink(key_.c_str());
            throw std::runtime_error("ftruncate " + key_ + ": " + reason);
        }
        void* base = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        const int map_errno = errno;
        // The mapping holds the object; the descriptor is not needed (so /proc counts the server's alone).
        close(fd);
        if (base == MAP_FAILED) {
            shm_unlink(key_.c_str());
            throw std::runtime_error("mmap " + key_ + ": " + std::strerror(map_errno));
        }
        data_ = static_cast<char*>(base);
    }
    ~ShmObject() {
        munmap(data_, size_);
        shm_unlink(key_.c_str());
    }
    ShmObject(const ShmObject&) = delete;
    ShmObject& operator=(const ShmObject&) = delete;

    /// The name shm_open takes ("/fpgacnn-test-<pid>-<n>").
    const std::string& key() const { return key_; }
    char* data() { return data_; }
    std::size_t size() const { return size_; }
    /// The object's bytes [offset, offset + count) as a string.
    std::string bytes(std::size_t offset, std::size_t count) const { return {data_ + offset, count}; }
    /// Copies `bytes` into the object at `offset`.
    void write(std::size_t offset, const std::string& bytes) {
        std::memcpy(data_ + offset, bytes.data(), bytes.size());
    }

    /// Resizes the object as a client may after registering (the test's own mapping keeps its length:
    /// the test must not touch its pages beyond the new size).
    void truncate(std::size_t size) {
        const int fd = shm_open(key_.c_str(), O_RDWR | O_CLOEXEC, 0);
        if (fd < 0) throw std::runtime_error("shm_open " + key_ + ": " + std::strerror(errno));
        const int result = ftruncate(fd, static_cast<off_t>(size));
        close(fd);
        if (result != 0) throw std::runtime_error("ftruncate " + key_ + ": " + std::strerror(errno));
    }

    /// A name no object of this process has had (for objects the test creates otherwise, or none).
    static std::string unique_key() {
        static std::atomic<int> counter{0};
        return "/fpgacnn-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    }

private:
    std::string key_;
    std::size_t size_ = 0;
    char* data_ = nullptr;
};

/// Bytes without a period (byte i: the top byte of Knuth's multiplicative hash of i), so a read at a
/// wrong offset, also one off by a page, gives other bytes.
inline std::string shm_pattern(std::size_t size) {
    std::string bytes(size, '\0');
    for (std::size_t i = 0; i < size; ++i)
        bytes[i] = static_cast<char>((static_cast<std::uint32_t>(i) * 2654435761u) >> 24);
    return bytes;
}

/// The mappings of the object `key` in this process (/proc/self/maps names them "/dev/shm<key>").
inline int shm_mappings_of(const std::string& key) {
    std::ifstream maps("/proc/self/maps");
    const std::string path = "/dev/shm" + key;
    int count = 0;
    for (std::string line; std::getline(maps, line);) {
        const std::size_t at = line.find(path);
        // The name ends there (or " (deleted)" follows once unlinked): "/x-1" is not "/x-10".
        if (at != std::string::npos && (at + path.size() == line.size() || line[at + path.size()] == ' '))
            ++count;
    }
    return count;
}

/// The open descriptors of the object `key` in this process.
inline int shm_descriptors_of(const std::string& key) {
    const std::string path = "/dev/shm" + key;
    int count = 0;
    DIR* fds = opendir("/proc/self/fd");
    if (fds == nullptr) return -1;
    while (const dirent* entry = readdir(fds)) {
        char target[PATH_MAX];
        const std::string link = std::string("/proc/self/fd/") + entry->d_name;
        const ssize_t length = readlink(link.c_str(), target, sizeof target - 1);
        if (length <= 0) continue;
        const std::string name(target, static_cast<std::size_t>(length));
        if (name == path || name == path + " (deleted)") ++count;
    }
    closedir(fds);
    return count;
}

}  // namespace fpgacnn::serve::test_support

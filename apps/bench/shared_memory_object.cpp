#include "shared_memory_object.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fpgacnn/error.hpp"

namespace fpgacnn::bench {

SharedMemoryObject::SharedMemoryObject(std::string key, std::size_t byte_size)
    : key_(std::move(key)), byte_size_(byte_size), data_(MAP_FAILED) {
    const int fd = shm_open(key_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw Error("shared-memory object '" + key_ + "' cannot be created: " + std::strerror(errno));
    if (ftruncate(fd, static_cast<off_t>(byte_size_)) == 0)
        data_ = mmap(nullptr, byte_size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int saved = errno;
    close(fd);  // the mapping keeps the object
    if (data_ == MAP_FAILED) {
        shm_unlink(key_.c_str());
        throw Error("shared-memory object '" + key_ + "' of " + std::to_string(byte_size_) +
                    " bytes cannot be sized or mapped: " + std::strerror(saved));
    }
}

SharedMemoryObject::~SharedMemoryObject() {
    munmap(data_, byte_size_);
    shm_unlink(key_.c_str());
}

void SharedMemoryObject::write(std::string_view bytes) {
    if (bytes.size() > byte_size_) {
        throw Error("shared-memory object '" + key_ + "': " + std::to_string(bytes.size()) +
                    " bytes do not fit its " + std::to_string(byte_size_));
    }
    std::memcpy(data_, bytes.data(), bytes.size());
}

}  // namespace fpgacnn::bench

// fpgacnn-bench --server --shared-memory: a client's own POSIX shared-memory object, the client side of
// fpgacnn-serve's system shared-memory extension. The client writes each image into it and its
// requests name the registered region instead of carrying the bytes (the server must run on the
// same host, as the same user, with --allow-client-shm).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fpgacnn::bench {

/// Created (O_EXCL, mode 0600) and mapped read-write on construction; unmapped and unlinked on
/// destruction, so no object is left in /dev/shm. Throws Error naming the key when it cannot be made.
class SharedMemoryObject {
public:
    SharedMemoryObject(std::string key, std::size_t byte_size);
    ~SharedMemoryObject();
    SharedMemoryObject(const SharedMemoryObject&) = delete;
    SharedMemoryObject& operator=(const SharedMemoryObject&) = delete;

    const std::string& key() const { return key_; }
    std::size_t byte_size() const { return byte_size_; }
    /// Copies `bytes` to the start of the object (at most byte_size()).
    void write(std::string_view bytes);

private:
    std::string key_;
    std::size_t byte_size_;
    void* data_;
};

}  // namespace fpgacnn::bench

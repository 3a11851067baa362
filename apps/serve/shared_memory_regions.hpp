// The system shared-memory extension of the Open Inference Protocol (Triton's
// "system_shared_memory"): a client on the same host puts an input tensor into a POSIX shared-memory
// object, registers a region of it under a name, and its requests then name the region instead of
// carrying the bytes, so a 1.3 MB image crosses neither the socket nor protobuf. Off unless the
// server is started with --allow-client-shm (registering makes the server map objects a client
// names). Regions are mapped read-only: outputs always travel in the response.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "inference_core.hpp"

namespace fpgacnn::serve {

/// At most this many regions are registered at once (each holds a mapping and a descriptor).
inline constexpr std::size_t kMaxSharedMemoryRegions = 64;
/// The largest region registered (an 8192 x 8192 RGB image is 192 MiB).
inline constexpr std::uint64_t kMaxSharedMemoryRegionBytes = std::uint64_t{1} << 30;

/// The error of every shared-memory call and input while the extension is off (Forbidden, naming
/// --allow-client-shm).
ServeError shared_memory_off_error();

/// A registered region as the status calls report it.
struct SharedMemoryRegionStatus {
    std::string name;
    std::string key;  // the shared-memory object's name, as shm_open takes it ("/...")
    std::uint64_t offset = 0;
    std::uint64_t byte_size = 0;
};

/// A tensor's bytes inside a region, and what keeps them mapped: a request holds `owner` until the
/// detector has read the pixels, so unregistering the region meanwhile does not unmap them.
struct SharedBytes {
    std::string_view bytes;
    std::shared_ptr<const void> owner;
};

/// Whether the server lets clients register regions (--allow-client-shm).
enum class ClientSharedMemory { Refused, Allowed };

/// The registered regions; every method is thread-safe. Failures throw ServeError: Forbidden while the
/// extension is off, NotFound for an unknown region, AlreadyExists for a name in use, InvalidArgument
/// for a key that names no object this server can map or a range outside the region / object.
class SharedMemoryRegions {
public:
    explicit SharedMemoryRegions(ClientSharedMemory access)
        : allowed_(access == ClientSharedMemory::Allowed) {}

    bool allowed() const { return allowed_; }

    /// Maps `byte_size` bytes at `offset` of the shared-memory object `key` read-only, as `name`.
    void register_region(const std::string& name, const std::string& key, std::uint64_t offset,
                         std::uint64_t byte_size);
    /// Unregisters `name` (NotFound if unknown), or every region when `name` is empty.
    void unregister(const std::string& name);
    /// The region `name`, or every region (by name) when `name` is empty.
    std::vector<SharedMemoryRegionStatus> status(const std::string& name) const;

    /// `byte_size` bytes at `offset` of region `name`; `where` names the request and input in errors.
    /// Checks that the object still holds them (a client that shrank it after registering gets an
    /// error, not a server that faults on the missing pages).
    SharedBytes bytes(const std::string& name, std::int64_t offset, std::int64_t byte_size,
                      const std::string& where) const;

    struct Mapping;

private:
    void check_allowed() const;
    /// Throws unless `name` is free and another region fits (the caller holds mutex_).
    void check_room_for(const std::string& name, const std::string& what) const;

    const bool allowed_;
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_ptr<const Mapping>> regions_;
};

}  // namespace fpgacnn::serve

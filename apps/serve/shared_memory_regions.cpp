#include "shared_memory_regions.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "inference_core.hpp"

namespace fpgacnn::serve {

/// One region's read-only mapping; unmapped when the last request using it and the registry let go.
struct SharedMemoryRegions::Mapping {
    SharedMemoryRegionStatus status;
    int fd = -1;
    void* base = MAP_FAILED;     // page-aligned start of the mapping
    std::size_t length = 0;      // of the mapping, from `base`
    const char* data = nullptr;  // the region's first byte

    Mapping() = default;
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    ~Mapping() {
        if (base != MAP_FAILED) munmap(base, length);
        if (fd >= 0) close(fd);
    }
};

namespace {

ServeError invalid(const std::string& reason) { return ServeError(ErrorKind::InvalidArgument, reason); }

/// A POSIX shared-memory name: "/" then 1..NAME_MAX characters without another "/" (shm_open's own
/// rule, checked here so a key can never name a path outside /dev/shm).
void check_key(const std::string& name, const std::string& key) {
    const bool well_formed = key.size() >= 2 && key.size() <= NAME_MAX && key[0] == '/' &&
                             key.find('/', 1) == std::string::npos && key != "/." && key != "/..";
    if (!well_formed) {
        throw invalid(
            "shared-memory region '" + name + "': key '" + key +
            "' is not a shared-memory object name ('/' then a name without '/', as shm_open takes)");
    }
}

std::uint64_t object_size(int fd) {
    struct stat info {};
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return 0;
    return static_cast<std::uint64_t>(info.st_size);
}

}  // namespace

ServeError shared_memory_off_error() {
    return ServeError(ErrorKind::Forbidden,
                      "system shared memory is off: start fpgacnn-serve with --allow-client-shm to let "
                      "clients on this host register shared-memory regions");
}

void SharedMemoryRegions::check_allowed() const {
    if (!allowed_) throw shared_memory_off_error();
}

void SharedMemoryRegions::check_room_for(const std::string& name, const std::string& what) const {
    if (regions_.count(name)) {
        throw ServeError(ErrorKind::AlreadyExists,
                         "shared-memory region '" + name + "' is already registered; unregister it first");
    }
    if (regions_.size() >= kMaxSharedMemoryRegions) {
        throw ServeError(ErrorKind::ResourceExhausted,
                         what + ": " + std::to_string(kMaxSharedMemoryRegions) +
                             " regions are registered, the most at once; unregister one first");
    }
}

void SharedMemoryRegions::register_region(const std::string& name, const std::string& key,
                                          std::uint64_t offset, std::uint64_t byte_size) {
    check_allowed();
    if (name.empty()) throw invalid("a shared-memory region needs a name");
    check_key(name, key);
    const std::string what = "shared-memory region '" + name + "' (key '" + key + "')";
    if (byte_size == 0 || byte_size > kMaxSharedMemoryRegionBytes) {
        throw invalid(what + ": byte_size " + std::to_string(byte_size) + " must be in [1, " +
                      std::to_string(kMaxSharedMemoryRegionBytes) + "]");
    }
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        check_room_for(name, what);
    }
    auto mapping = std::make_shared<Mapping>();
    mapping->status = {name, key, offset, byte_size};
    // O_NONBLOCK: a FIFO a client made under /dev/shm would block the open until a writer came (the
    // REST front end's I/O thread with it); it is then refused as no regular object.
    mapping->fd = shm_open(key.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
    if (mapping->fd < 0) {
        throw invalid(what + ": cannot open the shared-memory object (" + std::strerror(errno) +
                      "); create it (shm_open) before registering, readable by this server's user");
    }
    struct stat info {};
    if (fstat(mapping->fd, &info) != 0 || !S_ISREG(info.st_mode))
        throw invalid(what + ": not a shared-memory object (a FIFO, directory or device has that name)");
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (offset > size || byte_size > size - offset) {
        throw invalid(what + ": offset " + std::to_string(offset) + " + byte_size " +
                      std::to_string(byte_size) + " is beyond the object's " + std::to_string(size) +
                      " bytes");
    }
    const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    const std::uint64_t aligned = offset - offset % page;
    mapping->length = static_cast<std::size_t>(offset - aligned + byte_size);
    mapping->base =
        mmap(nullptr, mapping->length, PROT_READ, MAP_SHARED, mapping->fd, static_cast<off_t>(aligned));
    if (mapping->base == MAP_FAILED)
        throw invalid(what + ": cannot map the object (" + std::string(std::strerror(errno)) + ")");
    mapping->data = static_cast<const char*>(mapping->base) + (offset - aligned);

    const std::lock_guard<std::mutex> lock(mutex_);
    // Checked again: another call may have taken the name or the last place while this one mapped.
    check_room_for(name, what);
    regions_.emplace(name, std::move(mapping));
}

void SharedMemoryRegions::unregister(const std::string& name) {
    check_allowed();
    const std::lock_guard<std::mutex> lock(mutex_);
    if (name.empty()) {
        regions_.clear();
        return;
    }
    if (regions_.erase(name) == 0)
        throw ServeError(ErrorKind::NotFound, "no shared-memory region '" + name + "' is registered");
}

std::vector<SharedMemoryRegionStatus> SharedMemoryRegions::status(const std::string& name) const {
    check_allowed();
    const std::lock_guard<std::mutex> lock(mutex_);
    std::vector<SharedMemoryRegionStatus> list;
    if (name.empty()) {
        for (const auto& [region_name, mapping] : regions_) list.push_back(mapping->status);
        return list;
    }
    const auto found = regions_.find(name);
    if (found == regions_.end())
        throw ServeError(ErrorKind::NotFound, "no shared-memory region '" + name + "' is registered");
    list.push_back(found->second->status);
    return list;
}

SharedBytes SharedMemoryRegions::bytes(const std::string& name, std::int64_t offset, std::int64_t byte_size,
                                       const std::string& where) const {
    check_allowed();
    std::shared_ptr<const Mapping> mapping;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        const auto found = regions_.find(name);
        if (found == regions_.end()) {
            throw ServeError(ErrorKind::NotFound,
                             where + ": no shared-memory region '" + name + "' is registered");
        }
        mapping = found->second;
    }
    const std::uint64_t region_size = mapping->status.byte_size;
    if (offset < 0 || byte_size < 0 || static_cast<std::uint64_t>(offset) > region_size ||
        static_cast<std::uint64_t>(byte_size) > region_size - static_cast<std::uint64_t>(offset)) {
        throw invalid(where + ": shared_memory_offset " + std::to_string(offset) +
                      " + shared_memory_byte_size " + std::to_string(byte_size) + " is outside region '" +
                      name + "' of " + std::to_string(region_size) + " bytes");
    }
    // The client owns the object and may have shrunk it since registering; pages beyond its end
    // would fault when read.
    const std::uint64_t end =
        mapping->status.offset + static_cast<std::uint64_t>(offset) + static_cast<std::uint64_t>(byte_size);
    if (object_size(mapping->fd) < end) {
        throw invalid(where + ": shared-memory object '" + mapping->status.key + "' of region '" + name +
                      "' no longer holds " + std::to_string(end) + " bytes (shrunk after registering)");
    }
    const std::string_view view(mapping->data + offset, static_cast<std::size_t>(byte_size));
    return {view, std::move(mapping)};
}

}  // namespace fpgacnn::serve

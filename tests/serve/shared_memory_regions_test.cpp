// The registry of the system shared-memory extension on real POSIX shared-memory objects: the bytes a
// region gives at any offset (also offsets not on a page), the status of its regions, each refusal with
// its ErrorKind (the extension off, a name in use or unknown, a key or a range that names nothing to
// map, too many regions), a view outliving its region's unregistering, an object shrunk under the
// server, and no mapping or descriptor left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <limits>
#include <string>
#include <vector>

#include "serve_error_of.hpp"
#include "shared_memory_regions.hpp"
#include "shm_test_support.hpp"

namespace fpgacnn::serve {
namespace {

using test_support::serve_error_of;
using test_support::shm_descriptors_of;
using test_support::shm_mappings_of;
using test_support::shm_pattern;
using test_support::ShmObject;
using ::testing::HasSubstr;

std::size_t page_size() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

/// An object of three pages and a half holding shm_pattern, and a registry that allows regions.
class SharedMemoryRegionsTest : public ::testing::Test {
protected:
    SharedMemoryRegionsTest() : object(3 * page_size() + page_size() / 2) {
        object.write(0, shm_pattern(object.size()));
    }

    std::string pattern(std::size_t offset, std::size_t count) const {
        return shm_pattern(object.size()).substr(offset, count);
    }
    std::string read(const std::string& name, std::int64_t offset, std::int64_t byte_size) const {
        return std::string(regions.bytes(name, offset, byte_size, "test").bytes);
    }

    ShmObject object;
    SharedMemoryRegions regions{ClientSharedMemory::Allowed};
};

TEST_F(SharedMemoryRegionsTest, BytesAtOffsetsReadTheObjectsPattern) {
    const std::size_t page = page_size();
    // Offsets not on a page: the registry maps from the page below and must add the difference back.
    regions.register_region("low", object.key(), 100, 5000);
    regions.register_region("high", object.key(), 2 * page + 1, page + page / 2 - 1);  // to the object's end
    EXPECT_TRUE(regions.allowed());
    EXPECT_EQ(read("low", 0, 5000), pattern(100, 5000));
    EXPECT_EQ(read("low", 4000, 1000), pattern(4100, 1000));  // across the object's first 4 KiB boundary
    EXPECT_EQ(read("low", 4999, 1), pattern(5099, 1));
    EXPECT_EQ(read("low", 5000, 0), "");
    EXPECT_EQ(read("high", 0, 16), pattern(2 * page + 1, 16));
    EXPECT_EQ(read("high", static_cast<std::int64_t>(page), static_cast<std::int64_t>(page / 2 - 1)),
              pattern(3 * page + 1, page / 2 - 1));
    // The mapping shares the object: what the client writes after registering is what the next request reads.
    object.write(100, "fresh");
    EXPECT_EQ(read("low", 0, 5), "fresh");
    // The view is the region's bytes in place, one mapping for all reads: no copy per request.
    const SharedBytes first = regions.bytes("low", 0, 10, "test");
    const SharedBytes inner = regions.bytes("low", 4000, 10, "test");
    EXPECT_EQ(inner.bytes.data(), first.bytes.data() + 4000);
    EXPECT_NE(first.owner, nullptr);
}

TEST_F(SharedMemoryRegionsTest, StatusListsEveryRegionOrTheOneNamed) {
    EXPECT_TRUE(regions.status("").empty());
    regions.register_region("b", object.key(), 7, 300);
    regions.register_region("a", object.key(), 0, object.size());
    const std::vector<SharedMemoryRegionStatus> all = regions.status("");
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0].name, "a");  // by name
    EXPECT_EQ(all[0].key, object.key());
    EXPECT_EQ(all[0].offset, 0u);
    EXPECT_EQ(all[0].byte_size, object.size());
    EXPECT_EQ(all[1].name, "b");
    EXPECT_EQ(all[1].offset, 7u);
    EXPECT_EQ(all[1].byte_size, 300u);
    const std::vector<SharedMemoryRegionStatus> one = regions.status("b");
    ASSERT_EQ(one.size(), 1u);
    EXPECT_EQ(one[0].name, "b");
    EXPECT_EQ(one[0].key, object.key());
    const ServeError unknown = serve_error_of([&] { regions.status("c"); });
    EXPECT_EQ(unknown.kind(), ErrorKind::NotFound);
    EXPECT_THAT(unknown.what(), HasSubstr("'c'"));
}

TEST_F(SharedMemoryRegionsTest, ANameInUseIsAlreadyExistsAndAnUnknownOneNotFound) {
    regions.register_region("r", object.key(), 0, 100);
    const ServeError taken = serve_error_of([&] { regions.register_region("r", object.key(), 200, 100); });
    EXPECT_EQ(taken.kind(), ErrorKind::AlreadyExists);
    EXPECT_THAT(taken.what(), HasSubstr("'r' is already registered"));
    // The first registration stands.
    EXPECT_EQ(regions.status("r").at(0).offset, 0u);
    EXPECT_EQ(read("r", 0, 100), pattern(0, 100));

    EXPECT_EQ(serve_error_of([&] { regions.unregister("nope"); }).kind(), ErrorKind::NotFound);
    const ServeError unknown =
        serve_error_of([&] { regions.bytes("nope", 0, 1, "request 'x' input 'image'"); });
    EXPECT_EQ(unknown.kind(), ErrorKind::NotFound);
    EXPECT_THAT(unknown.what(), HasSubstr("request 'x' input 'image': no shared-memory region 'nope'"));

    // Unregistered, the name is free again, and the region gone.
    regions.unregister("r");
    EXPECT_EQ(serve_error_of([&] { regions.bytes("r", 0, 1, "test"); }).kind(), ErrorKind::NotFound);
    regions.register_region("r", object.key(), 200, 100);
    EXPECT_EQ(read("r", 0, 100), pattern(200, 100));
}

TEST_F(SharedMemoryRegionsTest, ARefusedRegistryRefusesEveryCallNamingTheOption) {
    SharedMemoryRegions refused(ClientSharedMemory::Refused);
    EXPECT_FALSE(refused.allowed());
    const auto expect_forbidden = [](const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Forbidden) << e.what();
        EXPECT_THAT(e.what(), HasSubstr("--allow-client-shm"));
    };
    // A valid object: refused for the setting, not for the request.
    expect_forbidden(serve_error_of([&] { refused.register_region("r", object.key(), 0, 100); }));
    expect_forbidden(serve_error_of([&] { refused.status(""); }));
    expect_forbidden(serve_error_of([&] { refused.status("r"); }));
    expect_forbidden(serve_error_of([&] { refused.unregister(""); }));
    expect_forbidden(serve_error_of([&] { refused.unregister("r"); }));
    expect_forbidden(serve_error_of([&] { refused.bytes("r", 0, 1, "test"); }));
    EXPECT_EQ(shared_memory_off_error().kind(), ErrorKind::Forbidden);
    // Nothing was opened or mapped.
    EXPECT_EQ(shm_descriptors_of(object.key()), 0);
    EXPECT_EQ(shm_mappings_of(object.key()), 1);  // the test's own
}

TEST_F(SharedMemoryRegionsTest, KeysThatAreNotSharedMemoryNamesAreInvalidArguments) {
    // Each would name a path outside /dev/shm, or no object at all.
    for (const std::string& key :
         std::vector<std::string>{"noslash", "/a/b", "/", "/..", "/.", "", "//x", "/../etc/passwd",
                                  "/" + std::string(NAME_MAX, 'k')}) {
        const ServeError e = serve_error_of([&] { regions.register_region("r", key, 0, 1); });
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << key;
        EXPECT_THAT(e.what(), HasSubstr("not a shared-memory object name")) << key;
    }
    // Well formed, but no such object.
    const ServeError missing =
        serve_error_of([&] { regions.register_region("r", ShmObject::unique_key(), 0, 1); });
    EXPECT_EQ(missing.kind(), ErrorKind::InvalidArgument);
    EXPECT_THAT(missing.what(), HasSubstr("cannot open the shared-memory object"));
    const ServeError nameless = serve_error_of([&] { regions.register_region("", object.key(), 0, 1); });
    EXPECT_EQ(nameless.kind(), ErrorKind::InvalidArgument);
    EXPECT_THAT(nameless.what(), HasSubstr("needs a name"));
    EXPECT_TRUE(regions.status("").empty());
}

TEST_F(SharedMemoryRegionsTest, SizesAndRangesBeyondTheObjectAreInvalidArguments) {
    const std::uint64_t size = object.size();
    const auto expect_invalid = [&](std::uint64_t offset, std::uint64_t byte_size,
                                    const std::string& reason) {
        const ServeError e =
            serve_error_of([&] { regions.register_region("r", object.key(), offset, byte_size); });
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << offset << " + " << byte_size << ": " << e.what();
        EXPECT_THAT(e.what(), HasSubstr(reason)) << offset << " + " << byte_size;
    };
    expect_invalid(0, 0, "byte_size 0 must be in [1, ");
    expect_invalid(0, kMaxSharedMemoryRegionBytes + 1, "must be in [1, 1073741824]");
    expect_invalid(0, size + 1, "beyond the object's " + std::to_string(size) + " bytes");
    expect_invalid(1, size, "beyond the object's");
    expect_invalid(size + 1, 1, "beyond the object's");
    // Sums that overflow 64 bits must not wrap into a range inside the object.
    expect_invalid(std::numeric_limits<std::uint64_t>::max(), 2, "beyond the object's");
    expect_invalid(2, std::numeric_limits<std::uint64_t>::max() - 1, "must be in [1, ");
    EXPECT_TRUE(regions.status("").empty());
    // Nothing failed half-way: no descriptor or mapping kept.
    EXPECT_EQ(shm_descriptors_of(object.key()), 0);
    EXPECT_EQ(shm_mappings_of(object.key()), 1);
    // All of the object is a region.
    regions.register_region("r", object.key(), 0, size);
    EXPECT_EQ(read("r", 0, static_cast<std::int64_t>(size)), pattern(0, size));
}

TEST_F(SharedMemoryRegionsTest, BytesOutsideTheRegionAreInvalidArguments) {
    regions.register_region("r", object.key(), 100, 1000);
    const auto expect_outside = [&](std::int64_t offset, std::int64_t byte_size) {
        const ServeError e =
            serve_error_of([&] { regions.bytes("r", offset, byte_size, "request 'q' input 'image'"); });
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << offset << " + " << byte_size;
        EXPECT_THAT(e.what(), HasSubstr("request 'q' input 'image': shared_memory_offset"));
        EXPECT_THAT(e.what(), HasSubstr("outside region 'r' of 1000 bytes"));
    };
    // The object holds bytes beyond the region's end: they are still not the region's.
    expect_outside(0, 1001);
    expect_outside(1000, 1);
    expect_outside(1001, 0);
    expect_outside(-1, 10);
    expect_outside(0, -1);
    expect_outside(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::max());
    expect_outside(1, std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(read("r", 0, 1000), pattern(100, 1000));
}

TEST_F(SharedMemoryRegionsTest, AHeldViewOutlivesUnregisteringThenTheMappingGoes) {
    regions.register_region("r", object.key(), 100, 5000);
    EXPECT_EQ(shm_mappings_of(object.key()), 2);  // the test's and the registry's
    EXPECT_EQ(shm_descriptors_of(object.key()), 1);
    SharedBytes held = regions.bytes("r", 10, 4000, "test");
    regions.unregister("r");
    EXPECT_EQ(serve_error_of([&] { regions.status("r"); }).kind(), ErrorKind::NotFound);
    // A request in flight still reads its pixels: unmapped, this read would fault (or read other data).
    EXPECT_EQ(shm_mappings_of(object.key()), 2);
    EXPECT_EQ(std::string(held.bytes), pattern(110, 4000));
    // The last holder gone, the mapping and its descriptor go too.
    held = {};
    EXPECT_EQ(shm_mappings_of(object.key()), 1);
    EXPECT_EQ(shm_descriptors_of(object.key()), 0);
}

TEST_F(SharedMemoryRegionsTest, UnregisteringWithoutANameClearsEveryRegion) {
    for (const char* name : {"a", "b", "c"}) regions.register_region(name, object.key(), 0, 64);
    ASSERT_EQ(regions.status("").size(), 3u);
    regions.unregister("");
    EXPECT_TRUE(regions.status("").empty());
    EXPECT_EQ(shm_mappings_of(object.key()), 1);
    EXPECT_EQ(shm_descriptors_of(object.key()), 0);
    regions.unregister("");  // none left: still no error
    regions.register_region("a", object.key(), 0, 64);
    EXPECT_EQ(regions.status("").size(), 1u);
}

TEST_F(SharedMemoryRegionsTest, BeyondTheMostRegionsIsResourceExhausted) {
    for (std::size_t i = 0; i < kMaxSharedMemoryRegions; ++i)
        regions.register_region("r" + std::to_string(i), object.key(), i, 16);
    const ServeError full = serve_error_of([&] { regions.register_region("one-more", object.key(), 0, 16); });
    EXPECT_EQ(full.kind(), ErrorKind::ResourceExhausted);
    EXPECT_THAT(full.what(), HasSubstr("64 regions are registered"));
    EXPECT_EQ(regions.status("").size(), kMaxSharedMemoryRegions);
    EXPECT_EQ(shm_descriptors_of(object.key()), static_cast<int>(kMaxSharedMemoryRegions));
    // A name in use stays AlreadyExists (the client's mistake), even when full.
    EXPECT_EQ(serve_error_of([&] { regions.register_region("r0", object.key(), 0, 16); }).kind(),
              ErrorKind::AlreadyExists);
    regions.unregister("r63");
    regions.register_region("one-more", object.key(), 0, 16);
    EXPECT_EQ(read("one-more", 0, 16), pattern(0, 16));
    EXPECT_EQ(read("r5", 0, 16), pattern(5, 16));
}

TEST_F(SharedMemoryRegionsTest, ConcurrentRegistrationsKeepTheLimitAndOneRegionPerName) {
    // The registry maps outside its lock, so it must check the name and the count again before adding:
    // else two calls could both succeed for one name, or more than the most regions be added.
    constexpr int kThreads = 8;
    constexpr int kEach = 12;  // 96 distinct names for 64 places, and 96 tries of the name "shared"
    struct Outcome {
        int registered = 0;
        int shared_registered = 0;
        std::vector<ErrorKind> refusals;
    };
    std::vector<std::future<Outcome>> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        threads.push_back(std::async(std::launch::async, [&, t] {
            Outcome outcome;
            for (int i = 0; i < kEach; ++i) {
                for (const std::string& name :
                     {"t" + std::to_string(t) + "-" + std::to_string(i), std::string("shared")}) {
                    try {
                        regions.register_region(name, object.key(), 0, 16);
                        ++outcome.registered;
                        outcome.shared_registered += name == "shared";
                    } catch (const ServeError& e) {
                        outcome.refusals.push_back(e.kind());
                    }
                }
            }
            return outcome;
        }));
    }
    int registered = 0;
    int shared_registered = 0;
    for (auto& thread : threads) {
        const Outcome outcome = thread.get();
        registered += outcome.registered;
        shared_registered += outcome.shared_registered;
        for (const ErrorKind kind : outcome.refusals) {
            EXPECT_TRUE(kind == ErrorKind::ResourceExhausted || kind == ErrorKind::AlreadyExists)
                << static_cast<int>(kind);
        }
    }
    const std::vector<SharedMemoryRegionStatus> status = regions.status("");
    EXPECT_EQ(status.size(), kMaxSharedMemoryRegions);
    EXPECT_EQ(registered, static_cast<int>(kMaxSharedMemoryRegions));  // every success is a region
    EXPECT_LE(shared_registered, 1);
    const bool has_shared = std::any_of(status.begin(), status.end(),
                                        [](const SharedMemoryRegionStatus& r) { return r.name == "shared"; });
    EXPECT_EQ(shared_registered, has_shared ? 1 : 0);
    // A refused registration keeps no descriptor.
    EXPECT_EQ(shm_descriptors_of(object.key()), static_cast<int>(kMaxSharedMemoryRegions));
}

TEST_F(SharedMemoryRegionsTest, AnObjectShrunkAfterRegisteringIsRefusedNotAFault) {
    regions.register_region("r", object.key(), 100, 5000);
    object.truncate(3000);  // the region's bytes from 2900 on are gone; reading them would be SIGBUS
    const ServeError shrunk =
        serve_error_of([&] { regions.bytes("r", 0, 5000, "request 's' input 'image'"); });
    EXPECT_EQ(shrunk.kind(), ErrorKind::InvalidArgument);
    EXPECT_THAT(shrunk.what(), HasSubstr("no longer holds 5100 bytes (shrunk after registering)"));
    EXPECT_EQ(serve_error_of([&] { regions.bytes("r", 2900, 1, "test"); }).kind(),
              ErrorKind::InvalidArgument);
    // What the object still holds is served.
    EXPECT_EQ(read("r", 2899, 1), pattern(2999, 1));
    EXPECT_EQ(read("r", 0, 2900), pattern(100, 2900));
    // Grown again, the region is whole (the bytes cut off come back as zeros).
    object.truncate(object.size());
    EXPECT_EQ(read("r", 2800, 200), pattern(2900, 100) + std::string(100, '\0'));
}

TEST_F(SharedMemoryRegionsTest, AKeyNamingAFifoOrADirectoryIsRefusedWithoutBlocking) {
    // A client on the host can make /dev/shm/<name> a FIFO; opening it for reading without O_NONBLOCK
    // waits for a writer, and would stall the server's thread (the REST front end's I/O thread).
    const std::string key = ShmObject::unique_key();
    const std::string path = "/dev/shm" + key;
    ASSERT_EQ(mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
    struct Unlink {
        std::string path;
        ~Unlink() { unlink(path.c_str()); }
    } unlink_fifo{path};
    auto registering = std::async(std::launch::async, [&] {
        return serve_error_of([&] { regions.register_region("fifo", key, 0, 16); });
    });
    if (registering.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        // Free the blocked thread (a writer's open completes the reader's) before failing.
        const int writer = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        registering.wait();
        if (writer >= 0) close(writer);
        regions.unregister("");
        FAIL() << "registering a FIFO blocked in shm_open";
    }
    const ServeError e = registering.get();
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
    EXPECT_THAT(e.what(), HasSubstr("not a shared-memory object"));

    const std::string folder_key = ShmObject::unique_key();
    const std::string folder = "/dev/shm" + folder_key;
    ASSERT_EQ(mkdir(folder.c_str(), 0700), 0) << std::strerror(errno);
    struct RemoveFolder {
        std::string path;
        ~RemoveFolder() { rmdir(path.c_str()); }
    } remove_folder{folder};
    EXPECT_EQ(serve_error_of([&] { regions.register_region("folder", folder_key, 0, 16); }).kind(),
              ErrorKind::InvalidArgument);
    EXPECT_TRUE(regions.status("").empty());
    EXPECT_EQ(shm_descriptors_of(key) + shm_descriptors_of(folder_key), 0);
}

TEST(SharedMemoryErrorKinds, ForbiddenAndAlreadyExistsHaveTheirStatuses) {
    EXPECT_EQ(http_status(ErrorKind::Forbidden), 403);
    EXPECT_EQ(grpc_code(ErrorKind::Forbidden), 7);  // PERMISSION_DENIED
    EXPECT_EQ(http_status(ErrorKind::AlreadyExists), 400);
    EXPECT_EQ(grpc_code(ErrorKind::AlreadyExists), 6);  // ALREADY_EXISTS
    // The kinds beside them keep theirs.
    EXPECT_EQ(http_status(ErrorKind::NotFound), 404);
    EXPECT_EQ(grpc_code(ErrorKind::ResourceExhausted), 8);
}

}  // namespace
}  // namespace fpgacnn::serve

// The CPU backends' thread pool: every item runs exactly once, results are visible after
// parallel_for returns, exceptions come back to the caller, and it can be reused (also under TSan).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../../runtime/src/core/thread_pool.hpp"

namespace fpgacnn {
namespace {

TEST(ThreadPool, RunsEveryItemExactlyOnceAcrossManyJobs) {
    ThreadPool pool(3);
    EXPECT_EQ(pool.size(), 3);
    for (std::size_t count : {0u, 1u, 2u, 7u, 1000u}) {
        for (int repeat = 0; repeat < 20; ++repeat) {
            std::vector<int> hits(count, 0);  // plain ints: written by one thread each, read after join
            pool.parallel_for(count, [&hits](std::size_t i) { ++hits[i]; });
            for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(hits[i], 1) << "item " << i << " of " << count;
        }
    }
}

TEST(ThreadPool, UsesMoreThanOneThreadWhenItHasThem) {
    ThreadPool pool(2);
    std::atomic<int> inside{0};
    std::atomic<bool> overlapped{false};
    // Each item waits briefly for company; with two threads some items overlap.
    pool.parallel_for(64, [&](std::size_t) {
        if (inside.fetch_add(1) > 0) overlapped = true;
        for (int spin = 0; spin < 2000 && !overlapped; ++spin) std::this_thread::yield();
        inside.fetch_sub(1);
    });
    EXPECT_TRUE(overlapped.load());
}

TEST(ThreadPool, RethrowsTheFirstExceptionAndStaysUsable) {
    ThreadPool pool(2);
    EXPECT_THROW(pool.parallel_for(100,
                                   [](std::size_t i) {
                                       if (i == 37) throw std::runtime_error("item 37 failed");
                                   }),
                 std::runtime_error);
    std::atomic<int> sum{0};
    pool.parallel_for(10, [&sum](std::size_t i) { sum += static_cast<int>(i); });
    EXPECT_EQ(sum.load(), 45);
}

TEST(ThreadPool, SerialisesCallsFromSeveralThreads) {
    ThreadPool pool(2);
    std::atomic<int> total{0};
    std::thread other([&] {
        for (int r = 0; r < 50; ++r) pool.parallel_for(10, [&total](std::size_t) { ++total; });
    });
    for (int r = 0; r < 50; ++r) pool.parallel_for(10, [&total](std::size_t) { ++total; });
    other.join();
    EXPECT_EQ(total.load(), 1000);
}

TEST(ThreadPool, SingleThreadPoolRunsOnTheCaller) {
    ThreadPool pool(1);
    const std::thread::id caller = std::this_thread::get_id();
    bool on_caller = true;
    pool.parallel_for(5, [&](std::size_t) { on_caller = on_caller && std::this_thread::get_id() == caller; });
    EXPECT_TRUE(on_caller);
}

TEST(ThreadPool, NestedCallRunsInlineInsteadOfDeadlocking) {
    ThreadPool pool(2);
    std::atomic<int> inner{0};
    pool.parallel_for(4, [&](std::size_t) {
        const std::thread::id outer_thread = std::this_thread::get_id();
        bool same_thread = true;
        pool.parallel_for(3, [&](std::size_t) {
            same_thread = same_thread && std::this_thread::get_id() == outer_thread;
            ++inner;
        });
        EXPECT_TRUE(same_thread);
    });
    EXPECT_EQ(inner.load(), 12);
}

TEST(ThreadPool, RangesCoverEveryIndexOnceAndSmallWorkStaysOnTheCaller) {
    ThreadPool pool(2);
    for (std::size_t cost : {std::size_t(1), std::size_t(1) << 20}) {
        std::vector<int> hits(1000, 0);
        std::atomic<int> calls{0};
        pool.parallel_for_ranges(hits.size(), cost, [&](std::size_t begin, std::size_t end) {
            ASSERT_LT(begin, end);
            for (std::size_t i = begin; i < end; ++i) ++hits[i];
            ++calls;
        });
        for (std::size_t i = 0; i < hits.size(); ++i)
            ASSERT_EQ(hits[i], 1) << "index " << i << ", cost " << cost;
        // 1000 one-operation items: one inline call; 1000 large ones: a few ranges per thread.
        EXPECT_EQ(calls.load(), cost == 1 ? 1 : 2 * 4);
    }
}

TEST(ThreadPool, SharedPoolIsOneProcessWidePoolOverAllCores) {
    EXPECT_EQ(&ThreadPool::shared(), &ThreadPool::shared());
    EXPECT_EQ(ThreadPool::shared().size(),
              static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace fpgacnn

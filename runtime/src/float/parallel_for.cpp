#include "float/parallel_for.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace fpgacnn::detail {

namespace {

// Below this many element operations per chunk, handing work to another thread costs more than
// it saves.
constexpr std::size_t kMinWorkPerChunk = std::size_t(1) << 17;
// Chunks per thread: more than one, so a thread that starts late (another process holds its
// core) just takes fewer chunks instead of holding everyone up.
constexpr std::size_t kChunksPerThread = 4;

// Persistent helper threads, woken per job. Chunks are claimed under the mutex together with the
// job's generation, so a helper that wakes late can never run a finished job's body; the caller
// claims chunks too and only waits for chunks a helper has already started.
class WorkerPool {
public:
    WorkerPool() {
        const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
        for (unsigned i = 1; i < hardware; ++i) helpers_.emplace_back([this] { helper_loop(); });
    }

    ~WorkerPool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (std::thread& helper : helpers_) helper.join();
    }

    std::size_t threads() const { return helpers_.size() + 1; }

    /// Runs the job with the helpers; returns false (nothing run) if another caller is using the pool.
    bool try_run(std::size_t count, std::size_t chunks,
                 const std::function<void(std::size_t, std::size_t)>& body) {
        std::unique_lock<std::mutex> owner(owner_, std::try_to_lock);
        if (!owner.owns_lock()) return false;
        std::uint64_t generation = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            body_ = &body;
            count_ = count;
            chunks_ = chunks;
            next_chunk_ = 0;
            finished_chunks_ = 0;
            generation = ++generation_;
        }
        wake_.notify_all();
        work_on(generation);
        std::unique_lock<std::mutex> lock(mutex_);
        all_finished_.wait(lock, [this] { return finished_chunks_ == chunks_; });
        body_ = nullptr;
        return true;
    }

private:
    void helper_loop() {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
                if (stopping_) return;
                seen = generation_;
            }
            work_on(seen);
        }
    }

    // Claims and runs chunks of job `generation` until none is left.
    void work_on(std::uint64_t generation) {
        for (;;) {
            const std::function<void(std::size_t, std::size_t)>* body = nullptr;
            std::size_t begin = 0, end = 0;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                if (generation_ != generation || next_chunk_ == chunks_) return;
                const std::size_t chunk = next_chunk_++;
                body = body_;
                begin = count_ * chunk / chunks_;
                end = count_ * (chunk + 1) / chunks_;
            }
            (*body)(begin, end);
            std::lock_guard<std::mutex> lock(mutex_);
            if (++finished_chunks_ == chunks_) all_finished_.notify_all();
        }
    }

    std::mutex owner_;  // one job at a time; other callers run inline
    std::mutex mutex_;  // guards everything below
    std::condition_variable wake_;
    std::condition_variable all_finished_;
    std::vector<std::thread> helpers_;
    const std::function<void(std::size_t, std::size_t)>* body_ = nullptr;
    std::size_t count_ = 0;
    std::size_t chunks_ = 0;
    std::size_t next_chunk_ = 0;
    std::size_t finished_chunks_ = 0;
    std::uint64_t generation_ = 0;
    bool stopping_ = false;
};

WorkerPool& pool() {
    static WorkerPool instance;
    return instance;
}

}  // namespace

void parallel_for(std::size_t count, std::size_t cost_per_item,
                  const std::function<void(std::size_t begin, std::size_t end)>& body) {
    if (count == 0) return;
    const std::size_t work = count * std::max<std::size_t>(cost_per_item, 1);
    const std::size_t max_chunks = std::thread::hardware_concurrency() * kChunksPerThread;
    const std::size_t chunks = std::min({count, work / kMinWorkPerChunk, max_chunks});
    if (chunks <= 1 || !pool().try_run(count, chunks, body)) body(0, count);
}

}  // namespace fpgacnn::detail

#include "core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

namespace fpgacnn {

namespace {

// Below this many element operations per range, handing work to another thread costs more than
// it saves.
constexpr std::size_t kMinWorkPerRange = std::size_t(1) << 17;
// Ranges per thread: more than one, so a thread that starts late (another process holds its core)
// just takes fewer ranges instead of holding everyone up.
constexpr std::size_t kRangesPerThread = 4;

// The pool whose job this thread is working on (workers: always their own pool), so a nested
// parallel_for runs inline instead of waiting for the job it is part of.
thread_local const ThreadPool* t_working_for = nullptr;

class WorkingFor {
public:
    explicit WorkingFor(const ThreadPool* pool) : previous_(t_working_for) { t_working_for = pool; }
    ~WorkingFor() { t_working_for = previous_; }
    WorkingFor(const WorkingFor&) = delete;
    WorkingFor& operator=(const WorkingFor&) = delete;

private:
    const ThreadPool* previous_;
};

}  // namespace

struct ThreadPool::Job {
    const std::function<void(std::size_t)>* fn = nullptr;
    std::size_t count = 0;
    std::atomic<std::size_t> next{0};
    std::mutex error_mutex;
    std::exception_ptr error;
};

ThreadPool::ThreadPool(int threads) {
    if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& worker : workers_) worker.join();
}

ThreadPool& ThreadPool::shared() {
    static ThreadPool pool;
    return pool;
}

void ThreadPool::work_on(Job& job) const {
    const WorkingFor working(this);
    for (;;) {
        const std::size_t i = job.next.fetch_add(1, std::memory_order_relaxed);
        if (i >= job.count) return;
        try {
            (*job.fn)(i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(job.error_mutex);
            if (!job.error) job.error = std::current_exception();
            // Skip what is left: the caller rethrows anyway.
            job.next.store(job.count, std::memory_order_relaxed);
        }
    }
}

void ThreadPool::worker_loop() {
    std::size_t seen_generation = 0;
    for (;;) {
        Job* job = nullptr;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock,
                       [&] { return stopping_ || (job_ != nullptr && generation_ != seen_generation); });
            if (stopping_) return;
            seen_generation = generation_;
            job = job_;
            ++workers_in_job_;
        }
        work_on(*job);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --workers_in_job_;
        }
        done_.notify_one();
    }
}

void ThreadPool::parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn) {
    if (count == 0) return;
    Job job;
    job.fn = &fn;
    job.count = count;
    if (count == 1 || workers_.empty() || t_working_for == this) {
        work_on(job);
    } else {
        const std::lock_guard<std::mutex> submit(submit_mutex_);
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            job_ = &job;
            ++generation_;
        }
        wake_.notify_all();
        work_on(job);
        // Every item is handed out: a worker still asleep (its core busy elsewhere) has nothing to
        // do and must not join later, so only the workers already in wait here, and `job` (on
        // this stack) outlives them.
        std::unique_lock<std::mutex> lock(mutex_);
        job_ = nullptr;
        done_.wait(lock, [&] { return workers_in_job_ == 0; });
    }
    if (job.error) std::rethrow_exception(job.error);
}

void ThreadPool::parallel_for_ranges(std::size_t count, std::size_t cost_per_item,
                                     const std::function<void(std::size_t begin, std::size_t end)>& body) {
    if (count == 0) return;
    const std::size_t work = count * std::max<std::size_t>(cost_per_item, 1);
    const std::size_t max_ranges = static_cast<std::size_t>(size()) * kRangesPerThread;
    const std::size_t ranges = std::min({count, work / kMinWorkPerRange, max_ranges});
    if (ranges <= 1) {
        body(0, count);
        return;
    }
    parallel_for(ranges, [&](std::size_t r) { body(count * r / ranges, count * (r + 1) / ranges); });
}

}  // namespace fpgacnn

// The CPU backends' one thread pool (float: im2col, bias + activation, maxpool; int16: convs,
// input packing, maxpool, the input conversion and the yolo heads' activation). parallel_for hands
// out item indexes from an atomic counter (dynamic scheduling, so uneven items balance), the caller
// works too, and idle workers sleep on a condition variable instead of spinning. One shared pool
// per process keeps two backends (or two detectors) from starting a set of all-cores threads each.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fpgacnn {

class ThreadPool {
public:
    /// threads: how many threads work on a parallel_for, the caller included; 0 = all cores.
    explicit ThreadPool(int threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    /// The process-wide pool over all cores that both CPU backends use.
    static ThreadPool& shared();

    /// Threads taking part in a parallel_for (workers + the caller).
    int size() const { return static_cast<int>(workers_.size()) + 1; }

    /// Calls fn(i) once for every i in [0, count) and returns when all calls are done. The first
    /// exception thrown by fn is rethrown here (the remaining items are skipped). Calls from
    /// several threads take turns; a call from inside fn runs inline on the calling thread.
    void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn);

    /// Calls body(begin, end) on contiguous ranges covering [0, count): a few ranges per thread,
    /// or a single inline call when count * cost_per_item (element operations) is too little
    /// work to be worth handing to another thread. Exceptions as parallel_for.
    void parallel_for_ranges(std::size_t count, std::size_t cost_per_item,
                             const std::function<void(std::size_t begin, std::size_t end)>& body);

private:
    struct Job;
    void worker_loop();
    void work_on(Job& job) const;

    std::vector<std::thread> workers_;
    std::mutex submit_mutex_;  // one job at a time
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    Job* job_ = nullptr;          // guarded by mutex_; null once all items are handed out
    std::size_t generation_ = 0;  // guarded by mutex_; bumped per job so workers join each once
    int workers_in_job_ = 0;      // guarded by mutex_
    bool stopping_ = false;       // guarded by mutex_
};

}  // namespace fpgacnn

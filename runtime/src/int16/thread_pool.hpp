// A small fixed thread pool for the int16 backend: parallel_for hands out item indexes from an
// atomic counter (dynamic scheduling, so uneven items balance), the caller works too, and idle
// workers sleep on a condition variable instead of spinning.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
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

    /// Threads taking part in a parallel_for (workers + the caller).
    int size() const { return static_cast<int>(workers_.size()) + 1; }

    /// Calls fn(i) once for every i in [0, count) and returns when all calls are done. The first
    /// exception thrown by fn is rethrown here (the remaining items are skipped). Calls from
    /// several threads are serialised; calling it from inside fn deadlocks.
    void parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn);

private:
    struct Job;
    void worker_loop();
    static void work_on(Job& job);

    std::vector<std::thread> workers_;
    std::mutex submit_mutex_;  // one parallel_for at a time
    std::mutex mutex_;
    std::condition_variable wake_;
    std::condition_variable done_;
    Job* job_ = nullptr;          // guarded by mutex_
    std::size_t generation_ = 0;  // guarded by mutex_; bumped per job so workers join each once
    int workers_pending_ = 0;     // guarded by mutex_
    bool stopping_ = false;       // guarded by mutex_
};

}  // namespace fpgacnn

#include "int16/thread_pool.hpp"

#include <algorithm>
#include <atomic>

namespace fpgacnn {

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

void ThreadPool::work_on(Job& job) {
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
            wake_.wait(lock, [&] { return stopping_ || generation_ != seen_generation; });
            if (stopping_) return;
            seen_generation = generation_;
            job = job_;
        }
        work_on(*job);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --workers_pending_;
        }
        done_.notify_one();
    }
}

void ThreadPool::parallel_for(std::size_t count, const std::function<void(std::size_t)>& fn) {
    if (count == 0) return;
    Job job;
    job.fn = &fn;
    job.count = count;
    if (count == 1 || workers_.empty()) {
        work_on(job);
    } else {
        std::lock_guard<std::mutex> submit(submit_mutex_);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = &job;
            ++generation_;
            workers_pending_ = static_cast<int>(workers_.size());
        }
        wake_.notify_all();
        work_on(job);
        // Every worker checks in before `job` (on this stack) goes away.
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return workers_pending_ == 0; });
        job_ = nullptr;
    }
    if (job.error) std::rethrow_exception(job.error);
}

}  // namespace fpgacnn

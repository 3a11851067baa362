// A closable FIFO between two pipeline stages. It needs no capacity of its own: the pipeline
// admits at most max_in_flight frames, so no queue ever holds more than that.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace fpgacnn::pipeline_detail {

template <typename T>
class WorkQueue {
public:
    void push(T item) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            items_.push_back(std::move(item));
        }
        ready_.notify_one();
    }

    /// The next item; empty once the queue is closed and drained.
    std::optional<T> pop() {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return closed_ || !items_.empty(); });
        if (items_.empty()) return std::nullopt;
        std::optional<T> item(std::move(items_.front()));
        items_.pop_front();
        return item;
    }

    void close() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            closed_ = true;
        }
        ready_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<T> items_;
    bool closed_ = false;
};

}  // namespace fpgacnn::pipeline_detail

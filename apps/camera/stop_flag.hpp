// A shutdown request the frame pipeline can both poll and sleep on: a --max-fps pause or a retry
// delay ends at once when the server is told to stop.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace fpgacnn::camera {

class StopFlag {
public:
    void request() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopped_ = true;
        }
        changed_.notify_all();
    }

    bool requested() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return stopped_;
    }

    /// Sleeps until `deadline`; returns false (early) when a stop is requested.
    template <typename Clock, typename Duration>
    bool sleep_until(std::chrono::time_point<Clock, Duration> deadline) {
        std::unique_lock<std::mutex> lock(mutex_);
        return !changed_.wait_until(lock, deadline, [this] { return stopped_; });
    }

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    bool stopped_ = false;
};

}  // namespace fpgacnn::camera

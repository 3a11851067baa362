// Frames per second over a sliding window of recent frames (what the page shows as "FPS").
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>

namespace fpgacnn::camera {

class FpsMeter {
public:
    using Clock = std::chrono::steady_clock;

    explicit FpsMeter(std::chrono::milliseconds window = std::chrono::milliseconds(2000)) : window_(window) {}

    /// Records a frame finished at `now`; returns the rate over the window (0 until two frames).
    double tick(Clock::time_point now) {
        stamps_.push_back(now);
        while (stamps_.size() > 2 && now - stamps_.front() > window_) stamps_.pop_front();
        if (stamps_.size() < 2) return 0.0;
        const double seconds = std::chrono::duration<double>(stamps_.back() - stamps_.front()).count();
        return seconds > 0 ? static_cast<double>(stamps_.size() - 1) / seconds : 0.0;
    }

private:
    Clock::duration window_;
    std::deque<Clock::time_point> stamps_;
};

}  // namespace fpgacnn::camera

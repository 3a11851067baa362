// A client's queue of pending frames/events. Bounded so a slow client loses frames instead of
// growing the server's memory: when full, the oldest entry makes room for the newest (a live view
// wants the latest picture, not a backlog). Not thread-safe: each queue lives on the server's
// single I/O thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <stdexcept>
#include <utility>

namespace fpgacnn::camera {

template <typename T>
class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {
        if (capacity == 0) throw std::invalid_argument("BoundedQueue needs a capacity of at least 1");
    }

    /// Appends `item`; when the queue is full the oldest entry is dropped (and counted).
    void push(T item) {
        if (items_.size() == capacity_) {
            items_.pop_front();
            ++dropped_;
        }
        items_.push_back(std::move(item));
    }

    /// The oldest entry, or nothing when empty.
    std::optional<T> pop() {
        if (items_.empty()) return std::nullopt;
        std::optional<T> front(std::move(items_.front()));
        items_.pop_front();
        return front;
    }

    bool empty() const { return items_.empty(); }
    std::size_t size() const { return items_.size(); }
    std::size_t capacity() const { return capacity_; }
    /// Entries discarded because the consumer fell behind.
    std::uint64_t dropped() const { return dropped_; }

private:
    std::size_t capacity_;
    std::deque<T> items_;
    std::uint64_t dropped_ = 0;
};

}  // namespace fpgacnn::camera

// A fixed-size, cache-line-aligned, zero-initialised array for packed weights and inputs
// (std::vector cannot promise more than alignof(T)).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace fpgacnn::int16_detail {

template <typename T>
class AlignedBuffer {
public:
    static constexpr std::size_t kAlignment = 64;

    AlignedBuffer() = default;
    explicit AlignedBuffer(std::size_t count) : count_(count) {
        if (count == 0) return;
        const std::size_t bytes = (count * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
        void* memory = std::aligned_alloc(kAlignment, bytes);
        if (memory == nullptr) throw std::bad_alloc();
        std::memset(memory, 0, bytes);
        data_.reset(static_cast<T*>(memory));
    }

    T* data() { return data_.get(); }
    const T* data() const { return data_.get(); }
    std::size_t size() const { return count_; }
    T& operator[](std::size_t i) { return data_.get()[i]; }
    const T& operator[](std::size_t i) const { return data_.get()[i]; }

private:
    struct Free {
        void operator()(T* p) const { std::free(p); }
    };
    std::unique_ptr<T, Free> data_;
    std::size_t count_ = 0;
};

}  // namespace fpgacnn::int16_detail

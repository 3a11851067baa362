// Little-endian serialisation and FNV-1a 64 for the quantized model file and the fingerprints,
// written byte by byte so the file is the same on every host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace fpgacnn {

// The file is little-endian; on such hosts int16 arrays are copied as they are (loading a 100 MB
// model is then bound by the checksum, not by byte shuffling).
constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

constexpr std::uint64_t kFnvOffsetBasis = 14695981039346656037ull;
constexpr std::uint64_t kFnvPrime = 1099511628211ull;

inline std::uint64_t fnv1a(const std::uint8_t* data, std::size_t size, std::uint64_t hash = kFnvOffsetBasis) {
    for (std::size_t i = 0; i < size; ++i) {
        hash ^= data[i];
        hash *= kFnvPrime;
    }
    return hash;
}

class ByteWriter {
public:
    void u8(std::uint8_t v) { bytes_.push_back(v); }
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
    }
    void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
    void raw(const char* text, std::size_t size) { bytes_.insert(bytes_.end(), text, text + size); }
    void i16_array(const std::vector<std::int16_t>& values) {
        if (kLittleEndianHost) {
            const std::size_t at = bytes_.size();
            bytes_.resize(at + 2 * values.size());
            if (!values.empty()) std::memcpy(bytes_.data() + at, values.data(), 2 * values.size());
            return;
        }
        bytes_.reserve(bytes_.size() + 2 * values.size());
        for (std::int16_t v : values) {
            const auto bits = static_cast<std::uint16_t>(v);
            bytes_.push_back(static_cast<std::uint8_t>(bits));
            bytes_.push_back(static_cast<std::uint8_t>(bits >> 8));
        }
    }
    void put_u64_at(std::size_t offset, std::uint64_t v) {
        for (int i = 0; i < 8; ++i) bytes_[offset + i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
    std::size_t size() const { return bytes_.size(); }
    const std::vector<std::uint8_t>& bytes() const { return bytes_; }

private:
    std::vector<std::uint8_t> bytes_;
};

/// Reads from a buffer whose size the caller has checked; each read advances.
class ByteReader {
public:
    ByteReader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool has(std::size_t bytes) const { return size_ - offset_ >= bytes; }
    std::uint32_t u32() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(data_[offset_ + i]) << (8 * i);
        offset_ += 4;
        return v;
    }
    std::uint64_t u64() {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(data_[offset_ + i]) << (8 * i);
        offset_ += 8;
        return v;
    }
    std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
    void i16_array(std::vector<std::int16_t>& out, std::size_t count) {
        out.resize(count);
        if (kLittleEndianHost) {
            if (count > 0) std::memcpy(out.data(), data_ + offset_, 2 * count);
            offset_ += 2 * count;
            return;
        }
        for (std::size_t i = 0; i < count; ++i) {
            const auto bits =
                static_cast<std::uint16_t>(data_[offset_ + 2 * i] | (data_[offset_ + 2 * i + 1] << 8));
            out[i] = static_cast<std::int16_t>(bits);
        }
        offset_ += 2 * count;
    }
    void skip(std::size_t bytes) { offset_ += bytes; }
    std::size_t offset() const { return offset_; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t offset_ = 0;
};

}  // namespace fpgacnn

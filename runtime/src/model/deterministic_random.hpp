// A tiny random generator whose output is the same on every compiler and machine: splitmix64 plus
// an exact integer-to-float conversion (std::uniform_*_distribution is implementation-defined).
#pragma once

#include <cstdint>

namespace fpgacnn::model {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    /// Uniform in [-1, 1) on a grid of 2^-23: k * 2^-23 - 1 is exact in float for k < 2^24.
    float symmetric() {
        const auto k = static_cast<std::int32_t>(next() >> 40);
        return static_cast<float>(k) * (1.0f / 8388608.0f) - 1.0f;
    }

private:
    std::uint64_t state_;
};

inline std::uint64_t mix64(std::uint64_t value) { return SplitMix64(value).next(); }

/// An independent stream per (seed, layer, array), so changing one layer leaves the others alike.
inline SplitMix64 stream_for(std::uint64_t seed, int layer_index, int array_id) {
    const std::uint64_t layer_key = mix64(seed) + static_cast<std::uint64_t>(layer_index);
    return SplitMix64(mix64(mix64(layer_key) + static_cast<std::uint64_t>(array_id)));
}

}  // namespace fpgacnn::model

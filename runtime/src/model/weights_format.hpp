// darknet's .weights layout: int32 major, minor, revision; `seen` (uint64 from version 0.2, uint32
// before); then per [convolutional] layer in cfg order: biases, [BN scales, rolling mean, rolling
// variance], weights -- all float32 little-endian.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn::model {

constexpr std::size_t kVersionBytes = 12;
constexpr std::size_t kHeaderBytesSeen32 = 16;
constexpr std::size_t kHeaderBytesSeen64 = 20;

/// darknet's own test (parser.c, load_weights_upto), with the range checks first so that the
/// multiplication cannot overflow.
inline bool has_64bit_seen(std::int32_t major, std::int32_t minor) {
    return major >= 0 && minor >= 0 && major < 1000 && minor < 1000 && (major * 10 + minor) >= 2;
}

/// Float counts of one conv layer's arrays, as the cfg implies them (BN counted when the cfg has it).
struct ConvArrayCounts {
    std::size_t biases = 0;
    std::size_t bn_each = 0;  // scales, rolling mean and rolling variance each have this many
    std::size_t weights = 0;
    std::size_t total() const { return biases + 3 * bn_each + weights; }
};

ConvArrayCounts conv_array_counts(const Layer& layer);

/// The largest magnitude accepted for a stored parameter (weights, biases, batch-norm arrays). The
/// trained models in shared/ peak at 16; 3e38 and the like are corrupt data that overflow a forward
/// pass to inf/NaN, which gives no detections without any error.
constexpr float kMaxParameterMagnitude = 1e6f;

/// A float in messages: "3e+38", "nan", "-1.5" (std::to_string prints 39 digits for 3e38).
std::string float_text(float value);

/// Floats of all conv layers together.
std::size_t parameter_count(const Network& network);

/// "convolutional layer 5 (cfg line 42)", for messages about a layer's data.
std::string describe_conv_layer(const Layer& layer);

/// A whole .weights file's bytes (version 0.2, `seen` in the header). Throws Error for a folded or
/// unfilled layer.
std::vector<unsigned char> darknet_weights_bytes(const Network& network, std::uint64_t seen);

/// Writes `bytes` to "<path>.tmp-XXXXXX" and renames it to `path`, so readers (and a run stopped
/// half-way) never see half a file. Throws Error naming the path.
void write_file_replacing(const std::string& path, const std::vector<unsigned char>& bytes);

/// Little-endian encoding, independent of the host's byte order.
inline std::uint32_t read_u32_le(const unsigned char* bytes) {
    return static_cast<std::uint32_t>(bytes[0]) | static_cast<std::uint32_t>(bytes[1]) << 8 |
           static_cast<std::uint32_t>(bytes[2]) << 16 | static_cast<std::uint32_t>(bytes[3]) << 24;
}

inline void write_u32_le(std::uint32_t value, unsigned char* bytes) {
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<unsigned char>(value >> (8 * i));
}

}  // namespace fpgacnn::model

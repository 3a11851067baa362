// Detects a damaged JPEG (truncated file, corrupt entropy-coded data) that OpenCV would decode
// partially without an error, with only libjpeg's unattributed "Premature end of JPEG file" on stderr.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fpgacnn::vision_detail {

/// libjpeg's first warning while entropy-decoding every scan of the JPEG (jpeg_read_coefficients:
/// no inverse DCT or colour conversion, so a fraction of a full decode), e.g. "Premature end of
/// JPEG file" or "Corrupt JPEG data: bad Huffman code"; or its fatal error. Empty when the data
/// decodes cleanly. Prints nothing. libjpeg may use at most `max_memory` bytes (a frame larger than
/// that is reported as a fatal error, not allocated).
std::string jpeg_damage(const std::uint8_t* data, std::size_t size, std::uint64_t max_memory);

}  // namespace fpgacnn::vision_detail

// One libjpeg pass from a clean JPEG to 8-bit RGB. Decoding a JPEG otherwise takes three passes over
// it (jpeg_damage's entropy decode, OpenCV's decode, OpenCV's BGR -> RGB swap): for fpgacnn-serve's
// encoded requests that was half of the server's CPU per request.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fpgacnn/vision.hpp"

namespace fpgacnn::vision_detail {

/// Decodes the JPEG into `out` with the pixels cv::imdecode(IMREAD_COLOR) gives for it (channels in RGB
/// order) and returns true. Returns false, `out` then holding nothing to keep, for every JPEG that
/// OpenCV's path must decode so the result stays OpenCV's:
/// - any libjpeg warning or error (damaged data: OpenCV's suspending reader decodes what it can, and
///   jpeg_damage names the damage);
/// - four components (CMYK / YCCK: OpenCV converts those itself);
/// - no Huffman tables (motion JPEG: OpenCV supplies its own);
/// - a first APP1 segment other than an Exif block whose orientation is 1 or absent (OpenCV flips
///   or rotates by the orientation it reads there).
/// libjpeg may use at most `max_memory` bytes besides `out`.
bool decode_clean_jpeg_rgb(const std::uint8_t* data, std::size_t size, std::uint64_t max_memory,
                           RgbPixels& out);

}  // namespace fpgacnn::vision_detail

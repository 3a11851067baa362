// Image dimensions read from a file's header, before decoding: the pixel cap and the memory budget
// are checked on them so that a 30000x30000 PNG is refused in microseconds instead of allocating
// gigabytes. Covers every format handed to OpenCV (JPEG, PNG, BMP, PNM, WebP), read as OpenCV's
// decoders read them; a file whose size cannot be read is refused before decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace fpgacnn::vision_detail {

struct HeaderSize {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
};

/// The size stated in the header, or nullopt for another format or a header too short to tell.
std::optional<HeaderSize> image_header_size(const std::uint8_t* data, std::size_t size);

/// True when the data starts with a JPEG SOI marker.
bool is_jpeg(const std::uint8_t* data, std::size_t size);

/// "JPEG", "PNG", "BMP", "PNM" or "WebP" from the data's signature; nullptr for anything else.
/// Only these are handed to OpenCV: it also decodes TIFF, JPEG 2000, OpenEXR, Radiance HDR, DICOM
/// (GDCM) and more, picked by signature whatever the file's name, and those decoders are a large
/// attack surface (fuzzing found GDCM aborting the whole process on a 135-byte file).
const char* supported_image_format(const std::uint8_t* data, std::size_t size);

}  // namespace fpgacnn::vision_detail

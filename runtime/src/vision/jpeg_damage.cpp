#include "vision/jpeg_damage.hpp"

#include "vision/jpeg_errors.hpp"

namespace fpgacnn::vision_detail {

namespace {

// Only plain C objects live in this frame: longjmp skips no destructors.
bool decode_coefficients(jpeg_decompress_struct& cinfo, JpegErrors& errors, const std::uint8_t* data,
                         std::size_t size, std::uint64_t max_memory) {
    if (setjmp(errors.fatal) != 0) return false;
    jpeg_create_decompress(&cinfo);
    // Bounds the coefficient arrays (2 bytes per sample) even for a frame the header check missed.
    read_jpeg_from_memory(cinfo, data, size, max_memory);
    jpeg_read_header(&cinfo, TRUE);
    jpeg_read_coefficients(&cinfo);
    jpeg_finish_decompress(&cinfo);
    return true;
}

}  // namespace

std::string jpeg_damage(const std::uint8_t* data, std::size_t size, std::uint64_t max_memory) {
    jpeg_decompress_struct cinfo{};
    JpegErrors errors{};
    attach_jpeg_errors(cinfo, errors);
    decode_coefficients(cinfo, errors, data, size, max_memory);
    jpeg_destroy_decompress(&cinfo);
    return errors.has_message ? std::string(errors.first_message) : std::string();
}

}  // namespace fpgacnn::vision_detail

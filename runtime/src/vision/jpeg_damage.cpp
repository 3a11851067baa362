#include "vision/jpeg_damage.hpp"

#include <algorithm>
#include <climits>

// clang-format off
#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <csetjmp>
#include <jpeglib.h>
// clang-format on

namespace fpgacnn::vision_detail {

namespace {

// libjpeg reports through callbacks; a fatal error must not return (longjmp back to the caller).
struct ErrorManager {
    jpeg_error_mgr pub;
    std::jmp_buf fatal;
    char first_message[JMSG_LENGTH_MAX];
    bool has_message;
};

void record(j_common_ptr cinfo) {
    auto* manager = reinterpret_cast<ErrorManager*>(cinfo->err);
    if (manager->has_message) return;
    manager->pub.format_message(cinfo, manager->first_message);
    manager->has_message = true;
}

void on_error_exit(j_common_ptr cinfo) {
    record(cinfo);
    std::longjmp(reinterpret_cast<ErrorManager*>(cinfo->err)->fatal, 1);
}

// msg_level -1 is a warning ("corrupt data"); levels >= 0 are trace messages.
void on_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level < 0) record(cinfo);
}

void silent_output(j_common_ptr /*cinfo*/) {}

// Only plain C objects live in this frame: longjmp skips no destructors.
bool decode_coefficients(jpeg_decompress_struct& cinfo, ErrorManager& errors, const std::uint8_t* data,
                         std::size_t size, long max_memory) {
    if (setjmp(errors.fatal) != 0) return false;
    jpeg_create_decompress(&cinfo);
    // Bounds the coefficient arrays (2 bytes per sample) even for a frame the header check missed.
    cinfo.mem->max_memory_to_use = max_memory;
    jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
    jpeg_read_header(&cinfo, TRUE);
    jpeg_read_coefficients(&cinfo);
    jpeg_finish_decompress(&cinfo);
    return true;
}

}  // namespace

std::string jpeg_damage(const std::uint8_t* data, std::size_t size, std::uint64_t max_memory) {
    jpeg_decompress_struct cinfo{};
    ErrorManager errors{};
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = on_error_exit;
    errors.pub.emit_message = on_emit_message;
    errors.pub.output_message = silent_output;
    const auto limit = static_cast<long>(std::min<std::uint64_t>(max_memory, LONG_MAX));
    decode_coefficients(cinfo, errors, data, size, limit);
    jpeg_destroy_decompress(&cinfo);
    return errors.has_message ? std::string(errors.first_message) : std::string();
}

}  // namespace fpgacnn::vision_detail

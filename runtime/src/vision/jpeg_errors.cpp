#include "vision/jpeg_errors.hpp"

#include <algorithm>
#include <climits>

namespace fpgacnn::vision_detail {

namespace {

void record(j_common_ptr cinfo) {
    auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
    if (errors->has_message) return;
    errors->pub.format_message(cinfo, errors->first_message);
    errors->has_message = true;
}

void on_error_exit(j_common_ptr cinfo) {
    record(cinfo);
    std::longjmp(reinterpret_cast<JpegErrors*>(cinfo->err)->fatal, 1);
}

// msg_level -1 is a warning ("corrupt data"); levels >= 0 are trace messages.
void on_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level < 0) record(cinfo);
}

void silent_output(j_common_ptr /*cinfo*/) {}

}  // namespace

void attach_jpeg_errors(jpeg_decompress_struct& cinfo, JpegErrors& errors) {
    cinfo.err = jpeg_std_error(&errors.pub);
    errors.pub.error_exit = on_error_exit;
    errors.pub.emit_message = on_emit_message;
    errors.pub.output_message = silent_output;
}

void read_jpeg_from_memory(jpeg_decompress_struct& cinfo, const std::uint8_t* data, std::size_t size,
                           std::uint64_t max_memory) {
    cinfo.mem->max_memory_to_use = static_cast<long>(std::min<std::uint64_t>(max_memory, LONG_MAX));
    jpeg_mem_src(&cinfo, data, static_cast<unsigned long>(size));
}

}  // namespace fpgacnn::vision_detail

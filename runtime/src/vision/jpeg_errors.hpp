// libjpeg's error reporting for fpgacnn's own passes over a JPEG (vision/jpeg_damage.cpp,
// vision/jpeg_rgb.cpp): nothing printed, the first message kept, and a fatal error longjmps back to
// `fatal`, which the pass that calls libjpeg sets with setjmp (libjpeg's error_exit must not return).
#pragma once

#include <cstdint>

// clang-format off
#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <csetjmp>
#include <jpeglib.h>
// clang-format on

namespace fpgacnn::vision_detail {

struct JpegErrors {
    jpeg_error_mgr pub;
    std::jmp_buf fatal;
    char first_message[JMSG_LENGTH_MAX];
    bool has_message;  // a warning (corrupt data) or the fatal error
};

/// Reports `cinfo`'s warnings and errors to `errors` from now on (call before jpeg_create_decompress).
void attach_jpeg_errors(jpeg_decompress_struct& cinfo, JpegErrors& errors);

/// libjpeg's memory limit (`max_memory`, at most what a long holds) and the source, for a
/// decompress object that jpeg_create_decompress made: the calls every pass starts with.
void read_jpeg_from_memory(jpeg_decompress_struct& cinfo, const std::uint8_t* data, std::size_t size,
                           std::uint64_t max_memory);

}  // namespace fpgacnn::vision_detail

// Shared argument checks for the image functions, so every entry point fails with the same clear message.
#pragma once

#include <string>

#include "fpgacnn/vision.hpp"

namespace fpgacnn::vision_detail {

/// Throws Error (naming `what`) unless the image has positive sizes and w*h*c values.
void require_valid_image(const Image& image, const std::string& what);

/// Throws Error (naming `what`) unless the pixels have positive sizes and width*height*3 bytes.
void require_valid_pixels(const RgbPixelsView& pixels, const std::string& what);

}  // namespace fpgacnn::vision_detail

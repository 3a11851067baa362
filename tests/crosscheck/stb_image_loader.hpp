// The image decoder of a darknet built without OpenCV (stb_image), which is what produced the
// reference listings in shared/models/*/SOURCE.md. Debian's libdarknet and fpgacnn decode JPEGs with
// OpenCV (libjpeg) instead, whose pixels differ by up to 3/255, so only an stb-decoded image can
// reproduce those listings to their printed precision. Optional: needs Debian's libstb-dev.
#pragma once

#include <string>

#include "fpgacnn/vision.hpp"

namespace fpgacnn::crosscheck {

/// True when this build found <stb/stb_image.h>.
bool stb_image_available();

/// darknet's load_image_stb(path, 3): RGB, CHW, value / 255. Throws std::runtime_error when stb is
/// unavailable or the file cannot be decoded.
Image load_image_stb(const std::string& path);

}  // namespace fpgacnn::crosscheck

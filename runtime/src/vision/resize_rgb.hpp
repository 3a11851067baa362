// darknet's resize_image straight from 8-bit RGB pixels, so that a frame can be letterboxed without
// first becoming a full-size float Image: the horizontal pass converts each pixel it reads as
// image_from_rgb would have, so the values are those the Image would have held.
#pragma once

#include "fpgacnn/vision.hpp"

namespace fpgacnn::vision_detail {

/// resize_image(image_from_rgb(pixels...), w, h), bit for bit.
Image resize_rgb(const RgbPixelsView& pixels, int w, int h);

}  // namespace fpgacnn::vision_detail

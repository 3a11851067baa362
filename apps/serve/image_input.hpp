// The model input `image` (docs/tools/fpgacnn-serve.md) as an fpgacnn::Image: an encoded file through
// the library's decoder, RGB pixels converted as the camera converts its frames. Throws
// ServeError(InvalidArgument) naming what is wrong.
#pragma once

#include "fpgacnn/vision.hpp"
#include "inference_core.hpp"

namespace fpgacnn::serve {

/// The largest RGB pixel input accepted (a side of 8192 pixels; larger images come encoded).
inline constexpr int kMaxPixelSide = 8192;

Image image_from_input(const ImageInput& input, const std::string& request_id);

}  // namespace fpgacnn::serve

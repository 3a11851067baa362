// The model input `image` (docs/tools/fpgacnn-serve.md) as the detector takes it: an encoded file
// through the library's decoder into 8-bit RGB pixels, RGB pixels handed over as sent (the detector
// letterboxes both without a float copy, with the values the camera's conversion gives). Throws
// ServeError(InvalidArgument) naming what is wrong.
#pragma once

#include <memory>
#include <string>

#include "fpgacnn/frame_input.hpp"
#include "fpgacnn/vision.hpp"
#include "inference_core.hpp"

namespace fpgacnn::serve {

/// The largest RGB pixel input accepted (a side of 8192 pixels; larger images come encoded).
inline constexpr int kMaxPixelSide = 8192;

/// The detector's frame for one request's image: a decoded file's pixels, or the pixels in the request's
/// own buffer (no copy). Shared, so a retry on another instance submits it again without a copy.
FrameInput detector_input(ImageInput&& input, const std::string& request_id);

}  // namespace fpgacnn::serve

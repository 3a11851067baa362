// The model input `image` (docs/tools/fpgacnn-serve.md) as the detector takes it: an encoded file
// through the library's decoder, RGB pixels handed over as sent (the detector letterboxes them
// without a float copy, with the values the camera's conversion gives). Throws
// ServeError(InvalidArgument) naming what is wrong.
#pragma once

#include <future>
#include <memory>
#include <string>

#include "fpgacnn/detector.hpp"
#include "fpgacnn/vision.hpp"
#include "inference_core.hpp"

namespace fpgacnn::serve {

/// The largest RGB pixel input accepted (a side of 8192 pixels; larger images come encoded).
inline constexpr int kMaxPixelSide = 8192;

/// One request's image, shared so a retry on another instance submits it again without a copy:
/// a decoded file or the pixels as sent, exactly one of them set.
struct DetectorInput {
    std::shared_ptr<const Image> image;
    std::shared_ptr<const RgbPixels> pixels;

    std::future<DetectionResult> submit_to(Detector& detector, FrameThresholds thresholds) const;
};

/// Takes the input's bytes (no copy of RGB pixels).
DetectorInput detector_input(ImageInput&& input, const std::string& request_id);

}  // namespace fpgacnn::serve

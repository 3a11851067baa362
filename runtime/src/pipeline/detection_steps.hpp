// The pre- and post-processing steps around Backend::run, shared by Detector::detect and the
// pipeline so both give the same detections.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "fpgacnn/detector.hpp"

namespace fpgacnn::pipeline_detail {

/// The letterboxed network input for `image`.
Image prepare_input(const Network& network, const Image& image);
/// The same input for 8-bit RGB pixels (identical to converting them with image_from_rgb first).
Image prepare_input(const Network& network, const RgbPixels& pixels);
/// The same input for a shared frame.
Image prepare_input(const Network& network, const FrameInput& frame);

/// `thresholds` with the options' values where it has none.
inline FrameThresholds resolved_thresholds(const DetectorOptions& options,
                                           const FrameThresholds& thresholds) {
    return {thresholds.thresh.value_or(options.thresh), thresholds.nms.value_or(options.nms)};
}

/// Region decode + NMS of a region buffer, in pixels of an image_w x image_h original, with resolved
/// thresholds (both set).
std::vector<Detection> decode_detections(const Network& network, const std::vector<std::string>& class_names,
                                         const FrameThresholds& thresholds,
                                         const std::vector<float>& region_output, int image_w, int image_h);

inline double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace fpgacnn::pipeline_detail

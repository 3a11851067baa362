// Everything fpgacnn-detect writes: JSON lines, a darknet-like text report, annotated images and
// videos, and raw float dumps. Files are written to a temporary name and renamed when complete,
// so an interrupted or failed run leaves no partial file behind.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "fpgacnn/detector.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn::detect {

/// One image's (or frame's) object; `damaged`: the image decoded only partially (Image::damaged).
nlohmann::json result_to_json(const std::string& image_name, const DetectionResult& result,
                              bool damaged = false);

/// darknet's `detector test` style: "<image>: Predicted in N ms." then "class: NN%" lines.
std::string result_to_text(const std::string& image_name, const DetectionResult& result);

/// Writes `floats` as raw little-endian float32 to `path` (atomically).
void write_float32_file(const std::string& path, const std::vector<float>& floats);

/// Writes `text` to `path` atomically; `what` names the content in error messages.
void write_text_file(const std::string& path, const std::string& text, const std::string& what);

/// Writes an encoded image atomically; the format follows the path's extension; `what` names the
/// picture in error messages.
void write_image_file(const std::string& path, const cv::Mat& image, const std::string& what);

/// The 8-bit BGR picture of a loaded image (for drawing), without decoding the file a second time.
cv::Mat bgr_from_image(const Image& image);

/// Path of the annotated copy of `input` inside `output_dir` (same file name, .jpg or .png kept).
std::string annotated_path(const std::string& output_dir, const std::string& input);

}  // namespace fpgacnn::detect

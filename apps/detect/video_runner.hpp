// Runs the detector over every frame of a video file, optionally writing an annotated copy.
#pragma once

#include <functional>
#include <string>

#include "fpgacnn/detector.hpp"

namespace fpgacnn::detect {

/// Called once per frame with "<video>#<frame index>" and the frame's result.
using FrameCallback = std::function<void(const std::string& frame_name, const DetectionResult& result)>;

/// Returns the number of frames processed. Throws Error naming the video if it cannot be opened.
/// With a non-empty `annotated_output`, writes an MJPEG .avi there (atomically, on success only).
int run_video(Detector& detector, const std::string& video_path, const std::string& annotated_output,
              const FrameCallback& on_frame);

}  // namespace fpgacnn::detect

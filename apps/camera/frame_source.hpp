// Where frames come from: a V4L2 camera (index or /dev/videoN), a video file (looped unless
// --once) or a GStreamer pipeline string, all read through OpenCV's VideoCapture, paced to at
// most --max-fps.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "stop_flag.hpp"

namespace cv {
class Mat;
class VideoCapture;
}  // namespace cv

namespace fpgacnn::camera {

enum class InputKind { CameraIndex, Device, File, GStreamer };

/// "0" -> CameraIndex, "/dev/video0" -> Device, a string with '!' -> GStreamer, else File.
InputKind classify_input(const std::string& input);

struct FrameSourceOptions {
    bool loop = true;      // video files restart at the end (ignored for cameras and pipelines)
    double max_fps = 0.0;  // 0: no cap (files then play at their own frame rate)
};

class FrameSource {
public:
    /// Opens the input; throws Error naming it (and what to check) when it cannot be opened.
    FrameSource(std::string input, FrameSourceOptions options);
    ~FrameSource();
    FrameSource(const FrameSource&) = delete;
    FrameSource& operator=(const FrameSource&) = delete;

    /// Waits for the pacing slot, then reads the next frame into `frame` (8-bit BGR). Returns
    /// false at the end of a file read --once, or when `stop` was requested while waiting.
    /// Throws Error when the device stops delivering or a file has no decodable frame.
    bool next(cv::Mat& frame, StopFlag& stop);

    /// e.g. "video file dog.avi (640x480, 25 fps, looping)".
    std::string description() const;

private:
    bool read_once(cv::Mat& frame);

    std::string input_;
    InputKind kind_;
    FrameSourceOptions options_;
    std::unique_ptr<cv::VideoCapture> capture_;
    std::chrono::steady_clock::duration frame_interval_{};
    std::chrono::steady_clock::time_point next_slot_{};
    long frames_read_ = 0;
};

}  // namespace fpgacnn::camera

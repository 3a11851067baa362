#include "frame_source.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <opencv2/videoio.hpp>

#include "fpgacnn/error.hpp"

namespace fpgacnn::camera {

InputKind classify_input(const std::string& input) {
    if (!input.empty() &&
        std::all_of(input.begin(), input.end(), [](unsigned char c) { return std::isdigit(c); }))
        return InputKind::CameraIndex;
    if (input.find('!') != std::string::npos) return InputKind::GStreamer;
    if (input.rfind("/dev/", 0) == 0) return InputKind::Device;
    return InputKind::File;
}

namespace {

std::unique_ptr<cv::VideoCapture> open_capture(const std::string& input, InputKind kind) {
    auto capture = std::make_unique<cv::VideoCapture>();
    switch (kind) {
        case InputKind::CameraIndex:
            capture->open(std::stoi(input), cv::CAP_V4L2);
            break;
        case InputKind::Device:
            capture->open(input, cv::CAP_V4L2);
            break;
        case InputKind::GStreamer:
            capture->open(input, cv::CAP_GSTREAMER);
            break;
        case InputKind::File:
            // FFmpeg, then GStreamer: not CAP_ANY, which also probes camera backends (libdc1394 / libusb)
            // that leak at exit when a path does not open.
            if (!capture->open(input, cv::CAP_FFMPEG)) capture->open(input, cv::CAP_GSTREAMER);
            break;
    }
    if (capture->isOpened()) return capture;
    switch (kind) {
        case InputKind::CameraIndex:
        case InputKind::Device:
            throw Error("--input " + input +
                        ": cannot open the V4L2 camera (is it plugged in, and is this user in the 'video' "
                        "group? `v4l2-ctl --list-devices` lists cameras)");
        case InputKind::GStreamer:
            throw Error("--input " + input +
                        ": cannot start the GStreamer pipeline (it must end in appsink; test it with "
                        "gst-launch-1.0, and check that OpenCV was built with GStreamer)");
        case InputKind::File:
            break;
    }
    throw Error("--input " + input +
                ": cannot open the video file (missing, unreadable, or a codec OpenCV lacks)");
}

const char* kind_name(InputKind kind) {
    switch (kind) {
        case InputKind::CameraIndex:
        case InputKind::Device:
            return "camera";
        case InputKind::GStreamer:
            return "GStreamer pipeline";
        case InputKind::File:
            break;
    }
    return "video file";
}

}  // namespace

FrameSource::FrameSource(std::string input, FrameSourceOptions options)
    : input_(std::move(input)),
      kind_(classify_input(input_)),
      options_(options),
      capture_(open_capture(input_, kind_)) {
    double fps = options_.max_fps;
    // A file has no clock of its own: without --max-fps it plays at its recorded rate, as a player would.
    if (fps <= 0 && kind_ == InputKind::File) {
        const double recorded = capture_->get(cv::CAP_PROP_FPS);
        if (recorded > 0 && recorded <= 240) fps = recorded;
    }
    if (fps > 0) {
        frame_interval_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(1.0 / fps));
    }
    next_slot_ = std::chrono::steady_clock::now();
}

FrameSource::~FrameSource() = default;

bool FrameSource::read_once(cv::Mat& frame) { return capture_->read(frame) && !frame.empty(); }

bool FrameSource::next(cv::Mat& frame, StopFlag& stop) {
    if (frame_interval_.count() > 0) {
        if (!stop.sleep_until(next_slot_)) return false;
        // A slow consumer does not earn a burst afterwards: the next slot counts from now at the latest.
        next_slot_ = std::max(next_slot_ + frame_interval_, std::chrono::steady_clock::now());
    }
    if (stop.requested()) return false;
    if (read_once(frame)) {
        ++frames_read_;
        return true;
    }
    if (kind_ != InputKind::File) {
        throw Error("--input " + input_ + ": the " + kind_name(kind_) + " stopped delivering frames after " +
                    std::to_string(frames_read_) + " frames");
    }
    if (frames_read_ == 0) throw Error("--input " + input_ + ": the video has no decodable frames");
    if (!options_.loop) return false;
    capture_->set(cv::CAP_PROP_POS_FRAMES, 0);
    if (!read_once(frame)) {
        // Some containers cannot seek: reopening restarts them.
        capture_ = open_capture(input_, kind_);
        if (!read_once(frame))
            throw Error("--input " + input_ + ": cannot restart the video at its first frame");
    }
    ++frames_read_;
    return true;
}

std::string FrameSource::description() const {
    const int width = static_cast<int>(capture_->get(cv::CAP_PROP_FRAME_WIDTH));
    const int height = static_cast<int>(capture_->get(cv::CAP_PROP_FRAME_HEIGHT));
    std::string text = fmt::format("{} {} ({}x{}", kind_name(kind_), input_, width, height);
    if (frame_interval_.count() > 0)
        text += fmt::format(", paced to {:.1f} fps",
                            1.0 / std::chrono::duration<double>(frame_interval_).count());
    if (kind_ == InputKind::File) text += options_.loop ? ", looping" : ", once";
    return text + ")";
}

}  // namespace fpgacnn::camera

// One processed frame as the HTTP clients receive it. Encoded once, shared by every client through
// shared_ptr: the MJPEG part (boundary, headers, JPEG) and the Server-Sent-Events message.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "fpgacnn/detector.hpp"

namespace cv {
class Mat;
}

namespace fpgacnn::camera {

/// The multipart boundary of /stream (without the leading "--").
inline constexpr const char* kStreamBoundary = "fpgacnnframe";

struct PublishedFrame {
    std::uint64_t number = 0;
    std::shared_ptr<const std::string>
        stream_part;                           // "--boundary\r\nContent-Type: image/jpeg..." + JPEG + CRLF
    std::shared_ptr<const std::string> event;  // "data: {json}\n\n"
};

struct FrameStats {
    std::uint64_t number = 0;
    double fps = 0;
    std::optional<VerificationStats> verification;  // --verify-every: the detector's golden-twin counters
};

/// Draws the detections and a "frame N, X fps" caption onto `bgr` (in place), JPEG-encodes it at
/// `jpeg_quality` and formats the event. Throws Error when the encoder fails.
PublishedFrame publish_frame(cv::Mat& bgr, const DetectionResult& result, const FrameStats& stats,
                             int classes, int jpeg_quality);

/// The SSE payload for one frame: {"frame","fps","ms","width","height","detections":[...]}, and with
/// golden-twin checking "verify": {"every","verified","mismatches","fell_back"}.
std::string frame_event_json(const DetectionResult& result, const FrameStats& stats);

}  // namespace fpgacnn::camera

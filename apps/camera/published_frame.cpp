#include "published_frame.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../common/json_text.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::camera {

namespace {

// The page shows a few digits; full float noise would only bloat every event.
double rounded(double value, double scale) { return std::round(value * scale) / scale; }

}  // namespace

std::string frame_event_json(const DetectionResult& result, const FrameStats& stats) {
    nlohmann::json detections = nlohmann::json::array();
    for (const Detection& d : result.detections) {
        detections.push_back({{"class", d.class_name},
                              {"class_id", d.class_id},
                              {"prob", rounded(d.prob, 1e4)},
                              {"left", d.left},
                              {"top", d.top},
                              {"right", d.right},
                              {"bottom", d.bottom}});
    }
    nlohmann::json event = {{"frame", stats.number},
                            {"fps", rounded(stats.fps, 100)},
                            {"ms", rounded(result.milliseconds, 100)},
                            {"width", result.image_w},
                            {"height", result.image_h},
                            {"detections", std::move(detections)}};
    if (stats.verification) {
        const VerificationStats& v = *stats.verification;
        event["verify"] = {{"every", v.every},
                           {"verified", v.frames_verified},
                           {"mismatches", v.mismatches},
                           {"fell_back", v.fell_back}};
    }
    return apps::json_text(event);
}

namespace {

void draw_caption(cv::Mat& bgr, const FrameStats& stats) {
    const std::string text = fmt::format("frame {}  {:.1f} fps", stats.number, stats.fps);
    const cv::Point origin(8, bgr.rows - 10);
    cv::putText(bgr, text, origin, cv::FONT_HERSHEY_SIMPLEX, 0.6, cv::Scalar(0, 0, 0), 4, cv::LINE_AA);
    cv::putText(bgr, text, origin, cv::FONT_HERSHEY_SIMPLEX, 0.6, cv::Scalar(255, 255, 255), 1, cv::LINE_AA);
}

}  // namespace

PublishedFrame publish_frame(cv::Mat& bgr, const DetectionResult& result, const FrameStats& stats,
                             int classes, int jpeg_quality) {
    draw_detections(bgr, result.detections, classes);
    draw_caption(bgr, stats);
    std::vector<unsigned char> jpeg;
    if (!cv::imencode(".jpg", bgr, jpeg, {cv::IMWRITE_JPEG_QUALITY, jpeg_quality}))
        throw Error(
            fmt::format("frame {}: the JPEG encoder failed ({}x{} image)", stats.number, bgr.cols, bgr.rows));

    std::string part =
        fmt::format("--{}\r\nContent-Type: image/jpeg\r\nContent-Length: {}\r\nX-Frame: {}\r\n\r\n",
                    kStreamBoundary, jpeg.size(), stats.number);
    part.append(jpeg.begin(), jpeg.end());
    part += "\r\n";

    PublishedFrame frame;
    frame.number = stats.number;
    frame.stream_part = std::make_shared<const std::string>(std::move(part));
    frame.event = std::make_shared<const std::string>("data: " + frame_event_json(result, stats) + "\n\n");
    return frame;
}

}  // namespace fpgacnn::camera

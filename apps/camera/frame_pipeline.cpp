#include "frame_pipeline.hpp"

#include <spdlog/spdlog.h>

#include "fpgacnn/vision.hpp"
#include "fps_meter.hpp"

namespace fpgacnn::camera {

DetectionResult DetectionStep::run(const cv::Mat& bgr) { return detector_.detect(image_from_bgr(bgr)); }

void LatestPicture::store(const cv::Mat& bgr) {
    std::lock_guard<std::mutex> lock(mutex_);
    bgr.copyTo(picture_);
    fresh_ = true;
}

bool LatestPicture::take_if_new(cv::Mat& out) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!fresh_) return false;
    picture_.copyTo(out);
    fresh_ = false;
    return true;
}

std::uint64_t run_frame_pipeline(FrameSource& source, DetectionStep& detection, const Publish& publish,
                                 const PipelineOptions& options, StopFlag& stop) {
    FpsMeter meter;
    FrameStats stats;
    cv::Mat frame;
    while (source.next(frame, stop)) {
        const DetectionResult result = detection.run(frame);
        ++stats.number;
        stats.fps = meter.tick(FpsMeter::Clock::now());
        publish(publish_frame(frame, result, stats, options.classes, options.jpeg_quality));
        if (options.show != nullptr) options.show->store(frame);
        if (stats.number == 1 || stats.number % 300 == 0) {
            spdlog::debug("frame {}: {} detections, {:.1f} ms, {:.1f} fps", stats.number,
                          result.detections.size(), result.milliseconds, stats.fps);
        }
    }
    return stats.number;
}

}  // namespace fpgacnn::camera

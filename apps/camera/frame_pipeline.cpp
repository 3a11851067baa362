#include "frame_pipeline.hpp"

#include <memory>

#include <spdlog/spdlog.h>

#include "fpgacnn/vision.hpp"
#include "fps_meter.hpp"

namespace fpgacnn::camera {

std::optional<DetectionStep::Done> DetectionStep::push(const cv::Mat& bgr) {
    // The capture source may reuse its buffer for the next frame: keep our own copy for publishing.
    // As 8-bit RGB: the detector letterboxes it without a float copy of the whole frame.
    pending_.push_back(
        Pending{bgr.clone(), detector_.submit(std::make_shared<const RgbPixels>(rgb_pixels_from_bgr(bgr)))});
    if (static_cast<int>(pending_.size()) < depth_) return std::nullopt;
    return pop();
}

std::optional<DetectionStep::Done> DetectionStep::pop() {
    if (pending_.empty()) return std::nullopt;
    Pending oldest = std::move(pending_.front());
    pending_.pop_front();
    return Done{std::move(oldest.frame), oldest.result.get()};  // get() rethrows the frame's error
}

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
    const auto publish_done = [&](DetectionStep::Done& done) {
        ++stats.number;
        stats.fps = meter.tick(FpsMeter::Clock::now());
        if (detection.detector().options().verify.every > 0)
            stats.verification = detection.detector().verification();
        publish(publish_frame(done.frame, done.result, stats, options.classes, options.jpeg_quality));
        if (options.show != nullptr) options.show->store(done.frame);
        if (stats.number == 1 || stats.number % 300 == 0) {
            spdlog::debug("frame {}: {} detections, {:.1f} ms, {:.1f} fps", stats.number,
                          done.result.detections.size(), done.result.milliseconds, stats.fps);
        }
    };
    cv::Mat frame;
    while (source.next(frame, stop)) {
        if (std::optional<DetectionStep::Done> done = detection.push(frame)) publish_done(*done);
    }
    // The source ended (--once) or a stop was requested: the frames still queued are published too.
    while (std::optional<DetectionStep::Done> done = detection.pop()) publish_done(*done);
    return stats.number;
}

}  // namespace fpgacnn::camera

// The frame loop: source -> detection step -> annotate/encode -> publish, on its own thread.
// The detection step is one small class so a pipelined detector can replace it without touching
// capture or serving.
#pragma once

#include <functional>
#include <mutex>
#include <string>

#include <opencv2/core/mat.hpp>

#include "fpgacnn/detector.hpp"
#include "frame_source.hpp"
#include "published_frame.hpp"
#include "stop_flag.hpp"

namespace fpgacnn::camera {

/// Runs the detector on one BGR frame.
class DetectionStep {
public:
    explicit DetectionStep(Detector& detector) : detector_(detector) {}
    DetectionResult run(const cv::Mat& bgr);

private:
    Detector& detector_;
};

/// The latest annotated picture, for the optional --show window (read by the GUI thread).
class LatestPicture {
public:
    void store(const cv::Mat& bgr);
    /// Copies the picture into `out` if a newer one arrived since the last take; false otherwise.
    bool take_if_new(cv::Mat& out);

private:
    std::mutex mutex_;
    cv::Mat picture_;
    bool fresh_ = false;
};

struct PipelineOptions {
    int classes = 0;
    int jpeg_quality = 80;
    LatestPicture* show = nullptr;  // --show: also hand each annotated frame to the window
};

using Publish = std::function<void(PublishedFrame)>;

/// Loops until the source ends (--once), `stop` is requested, or an error is thrown (the caller's
/// thread wrapper reports it). Returns the number of frames published.
std::uint64_t run_frame_pipeline(FrameSource& source, DetectionStep& detection, const Publish& publish,
                                 const PipelineOptions& options, StopFlag& stop);

}  // namespace fpgacnn::camera

// The frame loop: source -> detection step (the detector's pipelined submit()) -> annotate/encode
// -> publish, on its own thread.
#pragma once

#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <string>

#include <opencv2/core/mat.hpp>

#include "fpgacnn/detector.hpp"
#include "frame_source.hpp"
#include "published_frame.hpp"
#include "stop_flag.hpp"

namespace fpgacnn::camera {

/// Runs the detector on BGR frames through its pipelined submit(): capture, pre-processing, the
/// device and post-processing overlap, and results come back in capture order a few frames later.
class DetectionStep {
public:
    /// Keeps at most `depth` frames queued in the detector (>= 1; 1 = no overlap).
    DetectionStep(Detector& detector, int depth) : detector_(detector), depth_(depth < 1 ? 1 : depth) {}

    /// A frame with its detections.
    struct Done {
        cv::Mat frame;
        DetectionResult result;
    };
    /// Queues `bgr`; returns the oldest frame once `depth` frames are queued (its detections are
    /// then usually ready, because later frames were captured meanwhile).
    std::optional<Done> push(const cv::Mat& bgr);
    /// The oldest queued frame, or nothing when none is left (at the end of the source).
    std::optional<Done> pop();
    const Detector& detector() const { return detector_; }

private:
    struct Pending {
        cv::Mat frame;
        std::future<DetectionResult> result;
    };
    Detector& detector_;
    int depth_;
    std::deque<Pending> pending_;
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

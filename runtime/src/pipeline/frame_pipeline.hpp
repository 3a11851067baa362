// Detector::submit's machinery: three stages on threads of their own, connected by queues.
//   pre:    letterbox                         (one thread)
//   device: Backend::run                      (one thread per device backend)
//   post:   region decode + NMS, in order     (one thread; frames from several device workers are
//                                              put back into submission order first)
// Admission control bounds the frames alive at once (back-pressure on submit); a frame's exception
// travels with it to its future and the stages carry on with the next frame.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fpgacnn/detector.hpp"
#include "pipeline/work_queue.hpp"

namespace fpgacnn::pipeline_detail {

class FramePipeline {
public:
    /// The backends must outlive the pipeline; one device worker runs on each.
    FramePipeline(const Network& network, const std::vector<std::string>& class_names,
                  const DetectorOptions& options, const std::vector<Backend*>& device_backends);
    /// Finishes every admitted frame, then stops the threads.
    ~FramePipeline();
    FramePipeline(const FramePipeline&) = delete;
    FramePipeline& operator=(const FramePipeline&) = delete;

    /// `thresholds`: resolved (both set).
    std::future<DetectionResult> submit(FrameInput source, FrameThresholds thresholds);
    void flush();
    int in_flight() const;

private:
    struct Frame;
    using FramePtr = std::unique_ptr<Frame>;

    void pre_stage();
    void device_stage(Backend* backend);
    void post_stage();
    void finish(Frame& frame);

    const Network& network_;
    const std::vector<std::string>& class_names_;
    const int max_in_flight_;

    mutable std::mutex admission_mutex_;
    std::condition_variable admission_changed_;
    int in_flight_ = 0;
    std::uint64_t next_sequence_ = 0;

    WorkQueue<FramePtr> to_pre_;
    WorkQueue<FramePtr> to_device_;
    WorkQueue<FramePtr> to_post_;
    std::thread pre_thread_;
    std::vector<std::thread> device_threads_;
    std::thread post_thread_;
};

}  // namespace fpgacnn::pipeline_detail

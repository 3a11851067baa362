#include "pipeline/frame_pipeline.hpp"

#include <chrono>
#include <exception>

#include "fpgacnn/error.hpp"
#include "pipeline/detection_steps.hpp"

namespace fpgacnn::pipeline_detail {

using Clock = std::chrono::steady_clock;

struct FramePipeline::Frame {
    std::uint64_t sequence = 0;
    Clock::time_point submitted;
    FrameInput source;  // released after the pre stage; only its size is needed later
    Image input;        // the letterboxed network input
    std::vector<float> region_output;
    FrameThresholds thresholds;
    DetectionResult result;
    std::exception_ptr error;  // set by the first stage that failed; later stages skip the frame
    std::promise<DetectionResult> promise;
};

FramePipeline::FramePipeline(const Network& network, const std::vector<std::string>& class_names,
                             const DetectorOptions& options, const std::vector<Backend*>& device_backends)
    : network_(network), class_names_(class_names), max_in_flight_(options.max_in_flight) {
    if (max_in_flight_ < 1) throw Error("DetectorOptions::max_in_flight must be at least 1");
    if (device_backends.empty()) throw Error("the frame pipeline needs at least one device backend");
    pre_thread_ = std::thread([this] { pre_stage(); });
    for (Backend* backend : device_backends) {
        device_threads_.emplace_back([this, backend] { device_stage(backend); });
    }
    post_thread_ = std::thread([this] { post_stage(); });
}

FramePipeline::~FramePipeline() {
    flush();
    // Each stage ends when its input queue is closed and empty; closing in stage order lets every
    // frame already inside reach its future.
    to_pre_.close();
    pre_thread_.join();
    to_device_.close();
    for (std::thread& thread : device_threads_) thread.join();
    to_post_.close();
    post_thread_.join();
}

std::future<DetectionResult> FramePipeline::submit(FrameInput source, FrameThresholds thresholds) {
    auto frame = std::make_unique<Frame>();
    frame->source = std::move(source);
    frame->thresholds = thresholds;
    std::future<DetectionResult> future = frame->promise.get_future();
    std::unique_lock<std::mutex> lock(admission_mutex_);
    admission_changed_.wait(lock, [&] { return in_flight_ < max_in_flight_; });
    ++in_flight_;
    frame->sequence = next_sequence_++;
    frame->submitted = Clock::now();
    // Pushed under the admission lock so the pre stage sees frames in sequence order.
    to_pre_.push(std::move(frame));
    return future;
}

void FramePipeline::flush() {
    std::unique_lock<std::mutex> lock(admission_mutex_);
    admission_changed_.wait(lock, [&] { return in_flight_ == 0; });
}

int FramePipeline::in_flight() const {
    std::lock_guard<std::mutex> lock(admission_mutex_);
    return in_flight_;
}

void FramePipeline::pre_stage() {
    while (std::optional<FramePtr> item = to_pre_.pop()) {
        Frame& frame = **item;
        const auto start = Clock::now();
        try {
            frame.result.image_w = frame.source.width();
            frame.result.image_h = frame.source.height();
            frame.input = prepare_input(network_, frame.source);
        } catch (...) {
            frame.error = std::current_exception();
        }
        frame.source = FrameInput();
        frame.result.pre_ms = milliseconds_since(start);
        to_device_.push(std::move(*item));
    }
}

void FramePipeline::device_stage(Backend* backend) {
    while (std::optional<FramePtr> item = to_device_.pop()) {
        Frame& frame = **item;
        if (!frame.error) {
            const auto start = Clock::now();
            try {
                frame.region_output = backend->run(frame.input.data.data());
            } catch (...) {
                frame.error = std::current_exception();
            }
            frame.result.device_ms = milliseconds_since(start);
        }
        frame.input = Image();
        to_post_.push(std::move(*item));
    }
}

void FramePipeline::post_stage() {
    // Several device workers may finish out of order: hold frames until their turn.
    std::map<std::uint64_t, FramePtr> waiting;
    std::uint64_t next = 0;
    while (std::optional<FramePtr> item = to_post_.pop()) {
        const std::uint64_t sequence = (*item)->sequence;
        waiting.emplace(sequence, std::move(*item));
        for (auto it = waiting.find(next); it != waiting.end(); it = waiting.find(next)) {
            finish(*it->second);
            waiting.erase(it);
            ++next;
        }
    }
}

void FramePipeline::finish(Frame& frame) {
    if (!frame.error) {
        const auto start = Clock::now();
        try {
            frame.result.detections =
                decode_detections(network_, class_names_, frame.thresholds, frame.region_output,
                                  frame.result.image_w, frame.result.image_h);
        } catch (...) {
            frame.error = std::current_exception();
        }
        frame.result.post_ms = milliseconds_since(start);
    }
    frame.result.milliseconds = milliseconds_since(frame.submitted);
    {
        // Under the lock, so that whoever sees this future ready also sees the frame counted out.
        std::lock_guard<std::mutex> lock(admission_mutex_);
        if (frame.error) {
            frame.promise.set_exception(frame.error);
        } else {
            frame.promise.set_value(std::move(frame.result));
        }
        --in_flight_;
    }
    admission_changed_.notify_all();
}

}  // namespace fpgacnn::pipeline_detail

// What both front ends' tests share: a core that records (and can hold) the requests a front end hands
// it, passing them on to a RepositoryCore with YOLO-LITE (serve_test_repository.hpp), and the bytes and
// pixels of darknet's sample images as clients send them.
#pragma once

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fpgacnn/vision.hpp"
#include "inference_core.hpp"

namespace fpgacnn::serve::test_support {

inline std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// The file's RGB pixels as the server decodes them (load_image: floats of byte / 255).
inline std::string rgb_pixels(const Image& image) {
    std::string pixels;
    pixels.reserve(static_cast<std::size_t>(image.w) * image.h * 3);
    for (int y = 0; y < image.h; ++y)
        for (int x = 0; x < image.w; ++x)
            for (int c = 0; c < 3; ++c)
                pixels +=
                    static_cast<char>(static_cast<unsigned char>(std::lround(image.at(x, y, c) * 255.0f)));
    return pixels;
}

/// Passes every call to the RepositoryCore; keeps the last InferenceRequest and the kind of the last
/// ServeError, and while held, makes infer wait (before the model sees the request) until released.
class RecordingCore final : public InferenceCore {
public:
    explicit RecordingCore(InferenceCore& inner) : inner_(inner) {}

    bool live() const override { return inner_.live(); }
    bool ready() const override { return inner_.ready(); }
    ServerMetadata server_metadata() const override { return inner_.server_metadata(); }
    std::vector<std::string> model_names() const override { return inner_.model_names(); }
    bool model_ready(const std::string& name, const std::string& version) const override {
        return inner_.model_ready(name, version);
    }
    ModelMetadata model_metadata(const std::string& name, const std::string& version) const override {
        return inner_.model_metadata(name, version);
    }
    std::string metrics_text() const override { return inner_.metrics_text(); }
    SharedMemoryRegions& shared_memory() override { return inner_.shared_memory(); }

    InferenceResponse infer(InferenceRequest request) override {
        {
            std::unique_lock<std::mutex> lock(mutex_);
            last_request_ = request;
            ++entered_;
            changed_.notify_all();
            changed_.wait(lock, [&] { return !held_; });
        }
        try {
            return inner_.infer(std::move(request));
        } catch (const ServeError& e) {
            const std::lock_guard<std::mutex> lock(mutex_);
            last_error_ = e.kind();
            throw;
        }
    }

    void hold() {
        const std::lock_guard<std::mutex> lock(mutex_);
        held_ = true;
    }
    void release() {
        const std::lock_guard<std::mutex> lock(mutex_);
        held_ = false;
        changed_.notify_all();
    }
    /// Waits until `count` infer calls have arrived in all; returns the last one's request.
    InferenceRequest wait_for_calls(int count) {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return entered_ >= count; });
        return last_request_;
    }
    InferenceRequest last_request() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return last_request_;
    }
    std::optional<ErrorKind> last_error() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return last_error_;
    }

private:
    InferenceCore& inner_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool held_ = false;
    int entered_ = 0;
    InferenceRequest last_request_;
    std::optional<ErrorKind> last_error_;
};

/// A response's detections as a client decodes them.
struct Detections {
    std::vector<float> boxes;
    std::vector<float> scores;
    std::vector<std::int32_t> classes;
    std::vector<std::string> labels;
    bool operator==(const Detections& other) const {
        return boxes == other.boxes && scores == other.scores && classes == other.classes &&
               labels == other.labels;
    }
};

template <typename Value>
std::vector<Value> raw_values(const std::string& raw) {
    std::vector<Value> values(raw.size() / sizeof(Value));
    if (!values.empty()) std::memcpy(values.data(), raw.data(), values.size() * sizeof(Value));
    return values;
}

inline Detections detections_of(const InferenceResponse& response) {
    return {response.boxes, response.scores, response.classes, response.labels};
}

}  // namespace fpgacnn::serve::test_support

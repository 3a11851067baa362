// Networks, images and test backends for the pipeline tests. The test backends (a fixed output, a
// decorator that sleeps, fails or waits on a gate) let the tests control each stage's timing and
// failures without OpenBLAS underneath, so they also run under ThreadSanitizer.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "test_paths.hpp"

namespace fpgacnn::test {

/// yolov2-tiny at 64x64 with synthetic weights: a real detector network that runs in milliseconds
/// (made once per test process: the synthetic weights take a moment).
inline const Network& tiny_network() {
    static const Network network = [] {
        Network n = load_darknet_cfg(darknet_file("cfg/yolov2-tiny.cfg"), InputSizeOverride{64, 64});
        fill_synthetic_weights(n, 11);
        return n;
    }();
    return network;
}

/// A w x h RGB image with a smooth pattern that depends on `seed`.
inline Image pattern_image(int w, int h, int seed) {
    Image image;
    image.w = w;
    image.h = h;
    image.c = 3;
    image.data.resize(static_cast<std::size_t>(3) * w * h);
    std::size_t i = 0;
    for (int c = 0; c < 3; ++c)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                image.data[i++] = static_cast<float>(((x * (c + 1) + y * 3 + seed * 17) % 97) / 96.0);
    return image;
}

/// The region layer's size for `network`, all zeros: no detections, no computation.
class FixedOutputBackend final : public Backend {
public:
    explicit FixedOutputBackend(const Network& network)
        : output_(network.layers[static_cast<std::size_t>(network.region_layer_index())].output.size()) {}
    const std::vector<float>& run(const float* /*input*/) override { return output_; }
    std::vector<float> layer_output(int /*i*/) const override { return output_; }
    std::string name() const override { return "test (fixed output)"; }

private:
    std::vector<float> output_;
};

/// Runs `inner`, first calling `before(call_number)` (sleep, throw, wait on a gate...).
class HookedBackend final : public Backend {
public:
    HookedBackend(std::unique_ptr<Backend> inner, std::function<void(int)> before)
        : inner_(std::move(inner)), before_(std::move(before)) {}
    const std::vector<float>& run(const float* input) override {
        before_(calls_++);
        return inner_->run(input);
    }
    std::vector<float> layer_output(int i) const override { return inner_->layer_output(i); }
    std::string name() const override { return "test hook on " + inner_->name(); }

private:
    std::unique_ptr<Backend> inner_;
    std::function<void(int)> before_;
    int calls_ = 0;
};

/// Opens once; every wait is bounded so a broken pipeline fails the test instead of hanging it.
class Gate {
public:
    void open() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            open_ = true;
        }
        changed_.notify_all();
    }
    bool wait(std::chrono::seconds deadline = std::chrono::seconds(30)) {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, deadline, [&] { return open_; });
    }

private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool open_ = false;
};

inline void expect_same_detections(const DetectionResult& a, const DetectionResult& b,
                                   const std::string& what) {
    EXPECT_EQ(a.image_w, b.image_w) << what;
    EXPECT_EQ(a.image_h, b.image_h) << what;
    ASSERT_EQ(a.detections.size(), b.detections.size()) << what;
    for (std::size_t i = 0; i < a.detections.size(); ++i) {
        const Detection& x = a.detections[i];
        const Detection& y = b.detections[i];
        EXPECT_EQ(x.class_id, y.class_id) << what << " detection " << i;
        EXPECT_EQ(x.prob, y.prob) << what << " detection " << i;
        EXPECT_EQ(x.left, y.left) << what << " detection " << i;
        EXPECT_EQ(x.top, y.top) << what << " detection " << i;
        EXPECT_EQ(x.right, y.right) << what << " detection " << i;
        EXPECT_EQ(x.bottom, y.bottom) << what << " detection " << i;
    }
}

}  // namespace fpgacnn::test

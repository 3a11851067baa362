// The pipeline's contract: order, no loss or duplication, per-frame failures, back-pressure,
// throughput set by the slowest stage.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <future>
#include <mutex>
#include <numeric>
#include <random>

#include "pipeline_test_support.hpp"

namespace fpgacnn::test {
namespace {

using namespace std::chrono_literals;

DetectorOptions hooked_options(const Network& network, std::function<void(int)> before) {
    DetectorOptions options;
    options.backend_factory = [&network, before] {
        return std::make_unique<HookedBackend>(std::make_unique<FixedOutputBackend>(network), before);
    };
    return options;
}

// Each frame has its own image width, so a result names the frame it belongs to. Two device workers
// with random delays finish out of order; results must still come in submission order, once each.
TEST(Pipeline, ManyFramesKeepOrderWithoutLossOrDuplication) {
    const Network& network = tiny_network();
    DetectorOptions options = hooked_options(network, [](int call) {
        std::this_thread::sleep_for(std::chrono::microseconds((call * 7919) % 3000));
    });
    options.device_workers = 2;
    options.max_in_flight = 6;
    Detector detector(network, {}, options);
    const int frames = 300;
    std::vector<std::future<DetectionResult>> futures;
    for (int i = 0; i < frames; ++i) futures.push_back(detector.submit(pattern_image(40 + i, 30, i)));
    std::vector<int> widths;
    for (auto& future : futures) {
        ASSERT_EQ(future.wait_for(60s), std::future_status::ready);
        widths.push_back(future.get().image_w);
    }
    std::vector<int> expected(frames);
    std::iota(expected.begin(), expected.end(), 40);
    EXPECT_EQ(widths, expected);
    EXPECT_EQ(detector.frames_in_flight(), 0);
}

// Results are completed in submission order: a later frame's future is never ready first.
TEST(Pipeline, FuturesBecomeReadyInSubmissionOrder) {
    const Network& network = tiny_network();
    DetectorOptions options = hooked_options(network, [](int call) {
        std::this_thread::sleep_for(call % 2 == 0 ? 6ms : 0ms);  // even frames slower
    });
    options.device_workers = 3;
    Detector detector(network, {}, options);
    std::vector<std::future<DetectionResult>> futures;
    for (int i = 0; i < 40; ++i) futures.push_back(detector.submit(pattern_image(20, 20, i)));
    for (std::size_t i = 0; i < futures.size(); ++i) {
        ASSERT_EQ(futures[i].wait_for(60s), std::future_status::ready);
        // Everything before frame i was finished before it.
        for (std::size_t j = 0; j < i; ++j)
            EXPECT_EQ(futures[j].wait_for(0s), std::future_status::ready) << j << " before " << i;
    }
}

TEST(Pipeline, AFailingFrameFailsOnlyItsFuture) {
    const Network& network = tiny_network();
    DetectorOptions options = hooked_options(network, [](int call) {
        if (call == 2) throw Error("injected device failure on frame 2");
    });
    Detector detector(network, {}, options);
    std::vector<std::future<DetectionResult>> futures;
    for (int i = 0; i < 6; ++i) futures.push_back(detector.submit(pattern_image(30 + i, 30, i)));
    // An empty image fails in the pre stage (letterbox) and must not stop the others either.
    futures.push_back(detector.submit(Image{}));
    futures.push_back(detector.submit(pattern_image(99, 30, 9)));
    for (int i = 0; i < 6; ++i) {
        if (i == 2) {
            EXPECT_THROW(futures[2].get(), Error);
        } else {
            EXPECT_EQ(futures[static_cast<std::size_t>(i)].get().image_w, 30 + i);
        }
    }
    EXPECT_ANY_THROW(futures[6].get());
    EXPECT_EQ(futures[7].get().image_w, 99);
    EXPECT_EQ(detector.detect(pattern_image(50, 50, 1)).image_w, 50);
}

TEST(Pipeline, SubmitBlocksAtMaxInFlight) {
    const Network& network = tiny_network();
    auto gate = std::make_shared<Gate>();
    std::atomic<int> most_in_flight{0};
    Detector* observed = nullptr;
    DetectorOptions options = hooked_options(network, [gate, &most_in_flight, &observed](int /*call*/) {
        const int now = observed->frames_in_flight();
        int seen = most_in_flight.load();
        while (now > seen && !most_in_flight.compare_exchange_weak(seen, now)) {
        }
        ASSERT_TRUE(gate->wait());
    });
    options.max_in_flight = 3;
    Detector detector(network, {}, options);
    observed = &detector;
    std::vector<std::future<DetectionResult>> futures;
    for (int i = 0; i < 3; ++i) futures.push_back(detector.submit(pattern_image(10, 10, i)));
    EXPECT_EQ(detector.frames_in_flight(), 3);

    std::atomic<bool> fourth_returned{false};
    std::thread submitter([&] {
        futures.push_back(detector.submit(pattern_image(11, 10, 3)));
        fourth_returned = true;
    });
    // While the device stage is held, the fourth submit must stay blocked. (This wait can only
    // miss a broken pipeline, never fail a correct one.)
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(fourth_returned.load());
    gate->open();
    submitter.join();
    EXPECT_TRUE(fourth_returned.load());
    for (int i = 0; i < 20; ++i) futures.push_back(detector.submit(pattern_image(12, 10, i)));
    for (auto& future : futures) ASSERT_EQ(future.wait_for(60s), std::future_status::ready);
    EXPECT_LE(most_in_flight.load(), 3);
    EXPECT_GE(most_in_flight.load(), 1);
}

// Throughput is set by the slowest stage only if the stages overlap: while the device stage holds
// frame 1, frame 0 still goes through the post stage and its result is delivered, and the next frames
// are accepted. Checked by the order of events, not by the clock (the machine is shared and the test
// runs under ThreadSanitizer): the device's second call waits at a gate that opens only once frame 0's
// future is ready, so a pipeline that ran one stage at a time would never open it (the wait is bounded).
TEST(Pipeline, ThroughputFollowsTheSlowestStage) {
    const Network& network = tiny_network();
    auto gate = std::make_shared<Gate>();
    std::atomic<int> device_calls{0};
    DetectorOptions options = hooked_options(network, [gate, &device_calls](int call) {
        ++device_calls;
        if (call == 1) {
            EXPECT_TRUE(gate->wait()) << "frame 0 was not delivered while frame 1 was on the device";
        }
    });
    options.max_in_flight = 4;
    Detector detector(network, {}, options);
    std::vector<std::future<DetectionResult>> futures;
    for (int i = 0; i < 4; ++i) futures.push_back(detector.submit(pattern_image(40 + i, 30, i)));
    // Four submits returned with frame 1 held on the device: the pipeline took them in meanwhile.
    ASSERT_EQ(futures[0].wait_for(30s), std::future_status::ready) << "the post stage waited for the device";
    EXPECT_EQ(futures[1].wait_for(0s), std::future_status::timeout) << "frame 1 is still on the device";
    gate->open();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(futures[static_cast<std::size_t>(i)].get().image_w, 40 + i);
    EXPECT_EQ(device_calls.load(), 4);  // each frame on the device once
}

// Two device workers share the slow stage: two frames are on the device at the same time, and both
// workers (each with its own backend) run frames. The first two device calls meet at a rendezvous that
// only two concurrent calls can pass (bounded: a pipeline with one device at a time fails it).
TEST(Pipeline, TwoDeviceWorkersShareTheSlowStage) {
    const Network& network = tiny_network();
    struct Shared {
        std::mutex mutex;
        std::condition_variable changed;
        int arrived = 0;
        int active = 0;
        int most_active = 0;
        std::vector<int> calls_per_backend;
    };
    auto shared = std::make_shared<Shared>();
    DetectorOptions options;
    options.backend_factory = [&network, shared] {
        int backend = 0;
        {
            std::lock_guard<std::mutex> lock(shared->mutex);
            backend = static_cast<int>(shared->calls_per_backend.size());
            shared->calls_per_backend.push_back(0);
        }
        return std::make_unique<HookedBackend>(
            std::make_unique<FixedOutputBackend>(network), [shared, backend](int) {
                std::unique_lock<std::mutex> lock(shared->mutex);
                ++shared->calls_per_backend[static_cast<std::size_t>(backend)];
                shared->most_active = std::max(shared->most_active, ++shared->active);
                if (++shared->arrived <= 2) {
                    shared->changed.notify_all();
                    EXPECT_TRUE(shared->changed.wait_for(lock, 30s, [&] { return shared->arrived >= 2; }))
                        << "the second frame never reached the device while the first was on it";
                }
                --shared->active;
            });
    };
    options.device_workers = 2;
    options.max_in_flight = 6;
    const int frames = 12;
    {
        Detector detector(network, {}, options);
        std::vector<std::future<DetectionResult>> futures;
        for (int i = 0; i < frames; ++i) futures.push_back(detector.submit(pattern_image(20 + i, 20, i)));
        for (int i = 0; i < frames; ++i)
            EXPECT_EQ(futures[static_cast<std::size_t>(i)].get().image_w, 20 + i);
    }
    std::lock_guard<std::mutex> lock(shared->mutex);
    EXPECT_EQ(shared->most_active, 2);
    EXPECT_EQ(shared->arrived, frames);
    int worker_backends_used = 0;
    for (int calls : shared->calls_per_backend) worker_backends_used += calls > 0 ? 1 : 0;
    EXPECT_GE(worker_backends_used, 2) << "every frame ran on one worker";
}

TEST(Pipeline, DestructorFinishesEveryFrame) {
    const Network& network = tiny_network();
    std::vector<std::future<DetectionResult>> futures;
    {
        Detector detector(network, {},
                          hooked_options(network, [](int) { std::this_thread::sleep_for(2ms); }));
        for (int i = 0; i < 4; ++i) futures.push_back(detector.submit(pattern_image(16 + i, 16, i)));
    }
    for (int i = 0; i < 4; ++i) {
        ASSERT_EQ(futures[static_cast<std::size_t>(i)].wait_for(0s), std::future_status::ready);
        EXPECT_EQ(futures[static_cast<std::size_t>(i)].get().image_w, 16 + i);
    }
}

TEST(Pipeline, RejectsImpossibleOptions) {
    const Network& network = tiny_network();
    DetectorOptions options = hooked_options(network, [](int) {});
    options.max_in_flight = 0;
    EXPECT_THROW(Detector(network, {}, options), Error);
    options.max_in_flight = 1;
    options.device_workers = 0;
    EXPECT_THROW(Detector(network, {}, options), Error);
}

}  // namespace
}  // namespace fpgacnn::test

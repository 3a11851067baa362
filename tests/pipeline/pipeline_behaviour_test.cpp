// The pipeline's contract: order, no loss or duplication, per-frame failures, back-pressure,
// throughput set by the slowest stage.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
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

// Throughput approaches 1 / (slowest stage): a device stage that sleeps 40 ms (pre and post take
// well under a millisecond on these small images) gives 25 frames/s; one run after another would
// give less than that only by the small pre/post times, so the check is on the overlap: the
// pipelined rate must match 1 / (measured mean device time) within 10 %.
double pipelined_fps(int device_workers, std::chrono::milliseconds device_sleep, int frames,
                     double* mean_device_ms) {
    const Network& network = tiny_network();
    DetectorOptions options =
        hooked_options(network, [device_sleep](int /*call*/) { std::this_thread::sleep_for(device_sleep); });
    options.device_workers = device_workers;
    options.max_in_flight = 2 * device_workers + 2;
    Detector detector(network, {}, options);
    std::vector<std::future<DetectionResult>> futures;
    const Image image = pattern_image(64, 48, 0);
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < frames; ++i) futures.push_back(detector.submit(image));
    double device_ms = 0;
    for (auto& future : futures) {
        EXPECT_EQ(future.wait_for(60s), std::future_status::ready);
        device_ms += future.get().device_ms;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    *mean_device_ms = device_ms / frames;
    return frames / seconds;
}

TEST(Pipeline, ThroughputFollowsTheSlowestStage) {
    double mean_device_ms = 0;
    const double fps = pipelined_fps(1, 40ms, 40, &mean_device_ms);
    const double slowest_stage_fps = 1000.0 / mean_device_ms;
    EXPECT_NEAR(fps, slowest_stage_fps, 0.10 * slowest_stage_fps)
        << "device stage " << mean_device_ms << " ms";
    EXPECT_NEAR(mean_device_ms, 40.0, 8.0) << "the injected sleep";
}

TEST(Pipeline, TwoDeviceWorkersShareTheSlowStage) {
    double mean_device_ms = 0;
    const double fps = pipelined_fps(2, 40ms, 60, &mean_device_ms);
    const double slowest_stage_fps = 2 * 1000.0 / mean_device_ms;  // two frames at a time
    EXPECT_NEAR(fps, slowest_stage_fps, 0.10 * slowest_stage_fps)
        << "device stage " << mean_device_ms << " ms";
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

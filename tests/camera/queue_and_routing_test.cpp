// The camera server's pure parts: the per-client bounded queue, request routing, input kinds,
// the FPS meter and the SSE payload.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "bounded_queue.hpp"
#include "fpgacnn/error.hpp"
#include "fps_meter.hpp"
#include "frame_source.hpp"
#include "published_frame.hpp"
#include "request_route.hpp"

using namespace fpgacnn::camera;

TEST(BoundedQueue, KeepsOrderBelowCapacity) {
    BoundedQueue<int> queue(3);
    queue.push(1);
    queue.push(2);
    EXPECT_EQ(queue.size(), 2u);
    EXPECT_EQ(queue.pop(), 1);
    EXPECT_EQ(queue.pop(), 2);
    EXPECT_FALSE(queue.pop().has_value());
    EXPECT_EQ(queue.dropped(), 0u);
}

TEST(BoundedQueue, DropsOldestWhenFullAndCountsDrops) {
    BoundedQueue<int> queue(2);
    for (int i = 1; i <= 5; ++i) queue.push(i);
    EXPECT_EQ(queue.size(), 2u);
    EXPECT_EQ(queue.dropped(), 3u);
    EXPECT_EQ(queue.pop(), 4);  // the newest two survive
    EXPECT_EQ(queue.pop(), 5);
    EXPECT_TRUE(queue.empty());
}

TEST(BoundedQueue, NeverHoldsMoreThanCapacityOfSharedFrames) {
    BoundedQueue<std::shared_ptr<const std::string>> queue(2);
    std::weak_ptr<const std::string> first;
    for (int i = 0; i < 1000; ++i) {
        auto frame = std::make_shared<const std::string>(1000, 'x');
        if (i == 0) first = frame;
        queue.push(frame);
        ASSERT_LE(queue.size(), 2u);
    }
    EXPECT_TRUE(first.expired()) << "a dropped frame must be released, not kept alive by the queue";
    EXPECT_EQ(queue.dropped(), 998u);
}

TEST(BoundedQueue, RejectsZeroCapacity) { EXPECT_THROW(BoundedQueue<int>(0), std::invalid_argument); }

TEST(RequestRoute, KnownPaths) {
    EXPECT_EQ(route_request("GET", "/"), Route::Page);
    EXPECT_EQ(route_request("GET", "/index.html"), Route::Page);
    EXPECT_EQ(route_request("GET", "/stream"), Route::Stream);
    EXPECT_EQ(route_request("GET", "/events"), Route::Events);
    EXPECT_EQ(route_request("GET", "/stream?t=123"), Route::Stream);
    EXPECT_EQ(route_request("GET", "/?x#y"), Route::Page);
}

TEST(RequestRoute, UnknownPathIs404) {
    EXPECT_EQ(route_request("GET", "/favicon.ico"), Route::NotFound);
    EXPECT_EQ(route_request("GET", "/streams"), Route::NotFound);
    EXPECT_EQ(route_request("POST", "/nowhere"), Route::NotFound);
    EXPECT_EQ(route_status(Route::NotFound), 404);
}

TEST(RequestRoute, OtherMethodsOnKnownPathsAre405) {
    EXPECT_EQ(route_request("POST", "/"), Route::MethodNotAllowed);
    EXPECT_EQ(route_request("HEAD", "/stream"), Route::MethodNotAllowed);
    EXPECT_EQ(route_request("DELETE", "/events"), Route::MethodNotAllowed);
    EXPECT_EQ(route_request("get", "/"), Route::MethodNotAllowed);  // methods are case-sensitive
    EXPECT_EQ(route_status(Route::MethodNotAllowed), 405);
}

TEST(RequestRoute, NonPathTargetsAre400) {
    EXPECT_EQ(route_request("GET", ""), Route::BadRequest);
    EXPECT_EQ(route_request("GET", "stream"), Route::BadRequest);
    EXPECT_EQ(route_request("GET", "http://example.com/"), Route::BadRequest);
    EXPECT_EQ(route_request("GET", "*"), Route::BadRequest);
    EXPECT_EQ(route_request("GET", std::string("/a\x01", 3)), Route::BadRequest);
    EXPECT_EQ(route_request("GET", "/\xff"), Route::BadRequest);
    EXPECT_EQ(route_status(Route::BadRequest), 400);
    EXPECT_EQ(route_status(Route::Page), 200);
}

TEST(FrameSourceInput, Kinds) {
    EXPECT_EQ(classify_input("0"), InputKind::CameraIndex);
    EXPECT_EQ(classify_input("12"), InputKind::CameraIndex);
    EXPECT_EQ(classify_input("/dev/video0"), InputKind::Device);
    EXPECT_EQ(classify_input("v4l2src device=/dev/video0 ! videoconvert ! appsink"), InputKind::GStreamer);
    EXPECT_EQ(classify_input("clip.avi"), InputKind::File);
    EXPECT_EQ(classify_input("0.avi"), InputKind::File);
}

TEST(FrameSourceInput, MissingFileIsAnErrorNamingIt) {
    try {
        FrameSource source("/nonexistent/clip.avi", {});
        FAIL() << "opening a missing file must throw";
    } catch (const fpgacnn::Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/clip.avi"), std::string::npos) << e.what();
    }
}

TEST(FpsMeter, MeasuresRateOverWindow) {
    FpsMeter meter(std::chrono::milliseconds(1000));
    const auto start = FpsMeter::Clock::time_point{} + std::chrono::hours(1);
    EXPECT_EQ(meter.tick(start), 0.0);
    double fps = 0;
    for (int i = 1; i <= 50; ++i) fps = meter.tick(start + i * std::chrono::milliseconds(100));
    EXPECT_NEAR(fps, 10.0, 1e-9);
    for (int i = 1; i <= 50; ++i)
        fps = meter.tick(start + std::chrono::seconds(5) + i * std::chrono::milliseconds(40));
    EXPECT_NEAR(fps, 25.0, 1e-9);  // the old rate has left the window
}

TEST(FrameEvent, JsonCarriesFrameFpsAndDetections) {
    fpgacnn::DetectionResult result;
    result.image_w = 640;
    result.image_h = 480;
    result.milliseconds = 12.5;
    fpgacnn::Detection dog;
    dog.class_id = 11;
    dog.class_name = "dog";
    dog.prob = 0.75f;
    dog.left = 10;
    dog.top = 20;
    dog.right = 300;
    dog.bottom = 400;
    result.detections.push_back(dog);
    const auto event = nlohmann::json::parse(frame_event_json(result, FrameStats{7, 9.5, std::nullopt}));
    EXPECT_EQ(event["frame"], 7);
    EXPECT_DOUBLE_EQ(event["fps"].get<double>(), 9.5);
    EXPECT_EQ(event["width"], 640);
    ASSERT_EQ(event["detections"].size(), 1u);
    EXPECT_EQ(event["detections"][0]["class"], "dog");
    EXPECT_EQ(event["detections"][0]["right"], 300);
    EXPECT_NEAR(event["detections"][0]["prob"].get<double>(), 0.75, 1e-6);
    EXPECT_FALSE(event.contains("verify"));  // only with --verify-every
}

TEST(FrameEvent, JsonCarriesTheGoldenTwinCountersWhenVerifying) {
    fpgacnn::VerificationStats twin;
    twin.every = 10;
    twin.frames_verified = 4;
    twin.mismatches = 1;
    twin.fell_back = true;
    const auto event =
        nlohmann::json::parse(frame_event_json(fpgacnn::DetectionResult{}, FrameStats{31, 5.0, twin}));
    EXPECT_EQ(event["verify"]["every"], 10);
    EXPECT_EQ(event["verify"]["verified"], 4);
    EXPECT_EQ(event["verify"]["mismatches"], 1);
    EXPECT_EQ(event["verify"]["fell_back"], true);
}

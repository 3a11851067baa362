// fpgacnn-camera end to end over raw sockets: the MJPEG stream's parts, the SSE feed, the page,
// error statuses for bad requests (and the server still serving afterwards), and clean shutdown.
#include <gtest/gtest.h>

#include <signal.h>

#include <cmath>
#include <memory>
#include <regex>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "camera_process.hpp"
#include "device_help_check.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/detector.hpp"
#include "fpgacnn/vision.hpp"
#include "test_paths.hpp"

using namespace fpgacnn::test::camera;
using fpgacnn::test::app_path;
using fpgacnn::test::expect_help_lists_devices_and_precisions;
using fpgacnn::test::run_command;
using fpgacnn::test::scratch_dir;
using namespace std::chrono_literals;

namespace {

struct StreamPart {
    std::uint64_t frame = 0;
    std::string jpeg;
};

// Splits a /stream body (after the response headers) into its complete parts.
std::vector<StreamPart> parse_stream_parts(const std::string& body) {
    static const std::regex part_header(
        "--fpgacnnframe\r\nContent-Type: image/jpeg\r\nContent-Length: (\\d+)\r\nX-Frame: (\\d+)\r\n\r\n");
    std::vector<StreamPart> parts;
    auto begin = body.cbegin();
    std::smatch match;
    while (std::regex_search(begin, body.cend(), match, part_header)) {
        const std::size_t length = std::stoul(match[1].str());
        const auto data = match[0].second;
        if (static_cast<std::size_t>(body.cend() - data) < length + 2) break;
        StreamPart part;
        part.frame = std::stoull(match[2].str());
        part.jpeg.assign(data, data + static_cast<std::ptrdiff_t>(length));
        EXPECT_EQ(std::string(data + static_cast<std::ptrdiff_t>(length),
                              data + static_cast<std::ptrdiff_t>(length) + 2),
                  "\r\n");
        parts.push_back(std::move(part));
        begin = data + static_cast<std::ptrdiff_t>(length);
    }
    return parts;
}

// Each server-sent event's `data: {...}` line. Found by plain search, not std::regex: libstdc++'s
// regex recurses once per character, and a yolov3-tiny frame's line (100+ boxes) overflowed the
// stack under AddressSanitizer.
std::vector<nlohmann::json> parse_events(const std::string& text) {
    std::vector<nlohmann::json> events;
    static const std::string prefix = "data: {";
    for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) {
        const std::size_t begin = at + prefix.size() - 1;  // the '{'
        const std::size_t end = text.find("\n\n", begin);
        if (end == std::string::npos) break;  // an event still arriving: not a whole one
        events.push_back(nlohmann::json::parse(text.substr(begin, end - begin)));
        at = end;
    }
    return events;
}

class CameraHttp : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = yolo_lite_model();
        if (!model_) GTEST_SKIP() << "shared/models/yolo-lite-voc not found (set FPGACNN_SHARED_DIR)";
        video_ = make_test_video(scratch_dir("camera_video"));
    }
    void start(const std::vector<std::string>& extra = {"--max-fps", "20"}) {
        server_ = std::make_unique<CameraProcess>(*model_, video_, extra);
    }

    std::optional<TrainedModel> model_;
    std::string video_;
    std::unique_ptr<CameraProcess> server_;
};

TEST_F(CameraHttp, StreamDeliversMultipartJpegFramesInOrder) {
    start();
    Connection client(server_->port());
    client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string received =
        client.read_until([](const std::string& text) { return parse_stream_parts(text).size() >= 4; }, 30s);
    ASSERT_NE(received.find("\r\n\r\n"), std::string::npos) << server_->log();
    const std::string headers = received.substr(0, received.find("\r\n\r\n"));
    EXPECT_EQ(status_of(received), 200);
    EXPECT_NE(headers.find("Content-Type: multipart/x-mixed-replace; boundary=fpgacnnframe"),
              std::string::npos)
        << headers;
    const std::vector<StreamPart> parts = parse_stream_parts(received.substr(headers.size() + 4));
    ASSERT_GE(parts.size(), 4u) << server_->log();
    for (std::size_t i = 1; i < parts.size(); ++i) EXPECT_GT(parts[i].frame, parts[i - 1].frame);
    for (const StreamPart& part : parts) {
        const std::vector<unsigned char> bytes(part.jpeg.begin(), part.jpeg.end());
        const cv::Mat image = cv::imdecode(bytes, cv::IMREAD_COLOR);
        ASSERT_FALSE(image.empty()) << "frame " << part.frame << " is not a decodable JPEG";
        EXPECT_EQ(image.cols, 640);
        EXPECT_EQ(image.rows, 480);
    }
}

TEST_F(CameraHttp, EventsCarryFramesFpsAndDetections) {
    start();
    Connection client(server_->port());
    client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    // 25 events span both halves of the video (dog, then person) at 20 fps.
    const std::string received =
        client.read_until([](const std::string& text) { return parse_events(text).size() >= 25; }, 30s);
    EXPECT_EQ(status_of(received), 200);
    EXPECT_NE(received.find("Content-Type: text/event-stream"), std::string::npos);
    const std::vector<nlohmann::json> events = parse_events(received);
    ASSERT_GE(events.size(), 25u) << server_->log();
    std::set<std::string> classes;
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (i > 0) {
            EXPECT_GT(events[i]["frame"].get<int>(), events[i - 1]["frame"].get<int>());
        }
        EXPECT_EQ(events[i]["width"], 640);
        for (const auto& detection : events[i]["detections"]) {
            classes.insert(detection["class"].get<std::string>());
            EXPECT_GT(detection["prob"].get<double>(), 0.5);
            EXPECT_LT(detection["left"].get<int>(), detection["right"].get<int>());
        }
    }
    EXPECT_GT(events.back()["fps"].get<double>(), 0.0);
    EXPECT_TRUE(classes.count("dog")) << "YOLO-LITE finds the dog in dog.jpg";
    EXPECT_TRUE(classes.count("person")) << "and the person in person.jpg";
}

TEST_F(CameraHttp, PageEmbedsStreamAndEventFeed) {
    start();
    const std::string page = http_get(server_->port(), "/");
    EXPECT_EQ(status_of(page), 200);
    EXPECT_NE(page.find("Content-Type: text/html"), std::string::npos);
    EXPECT_NE(page.find("<img id=\"stream\" src=\"/stream\""), std::string::npos);
    EXPECT_NE(page.find("new EventSource(\"/events\")"), std::string::npos);
}

TEST_F(CameraHttp, UnknownPathsAndMethodsGet404And405) {
    start();
    EXPECT_EQ(status_of(http_get(server_->port(), "/favicon.ico")), 404);
    Connection post(server_->port());
    post.send("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    const std::string response = post.read_all(10s);
    EXPECT_EQ(status_of(response), 405);
    EXPECT_NE(response.find("Allow: GET"), std::string::npos);
}

TEST_F(CameraHttp, MalformedRequestsGet400AndTheServerKeepsServing) {
    start();
    const std::vector<std::pair<std::string, std::string>> requests = {
        {"garbage bytes", std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15)},
        {"HTTP/0.9 request line", "GET /\r\n\r\n"},
        {"bad method token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n"},
        {"bad version", "GET / HTTP/x.y\r\nHost: x\r\n\r\n"},
        {"header without colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n"},
        {"absolute-form target", "GET http://example.com/ HTTP/1.1\r\nHost: x\r\n\r\n"},
        {"huge header", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n"},
    };
    for (const auto& [what, bytes] : requests) {
        Connection client(server_->port());
        client.send(bytes);
        const std::string response = client.read_all(10s);
        EXPECT_EQ(status_of(response), 400) << what << ": " << response.substr(0, 200);
        EXPECT_TRUE(client.closed_by_peer(5s)) << what << ": the connection must be closed after a 400";
    }
    // Still serving: the page and fresh frames.
    EXPECT_EQ(status_of(http_get(server_->port(), "/")), 200);
    Connection stream(server_->port());
    stream.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string frames = stream.read_until(
        [](const std::string& text) { return count_of(text, "--fpgacnnframe\r\n") >= 2; }, 30s);
    EXPECT_GE(count_of(frames, "--fpgacnnframe\r\n"), 2u);
    EXPECT_TRUE(server_->running());
}

TEST_F(CameraHttp, SigtermStopsCleanlyWithClientsConnected) {
    start();
    Connection reader(server_->port());
    reader.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_GE(count_of(reader.read_until(
                           [](const std::string& t) { return count_of(t, "--fpgacnnframe") >= 1; }, 30s),
                       "--fpgacnnframe"),
              1u);
    Connection idle(server_->port());  // connected, request never finished
    idle.send("GET /events HTTP/1.1\r\n");
    Connection never_reads(server_->port());
    never_reads.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    EXPECT_EQ(server_->stop(SIGTERM, 15s), 0) << server_->log();
    EXPECT_TRUE(reader.closed_by_peer(5s));
    EXPECT_NE(server_->log().find("shutting down (SIGTERM)"), std::string::npos) << server_->log();
}

TEST_F(CameraHttp, SigintStopsCleanly) {
    start();
    EXPECT_EQ(status_of(http_get(server_->port(), "/")), 200);
    EXPECT_EQ(server_->stop(SIGINT, 15s), 0) << server_->log();
}

TEST_F(CameraHttp, OncePlaysTheVideoOnceThenExits) {
    start({"--once", "--max-fps", "100"});
    EXPECT_EQ(server_->wait_exit(60s), 0) << server_->log();
    EXPECT_NE(server_->log().find("20 frames processed"), std::string::npos) << server_->log();
}

TEST(CameraCli, HelpOffersEveryDeviceDriverAndPrecision) {
    std::string out;
    ASSERT_EQ(run_command(app_path("camera", "fpgacnn-camera") + " --help", &out), 0);
    expect_help_lists_devices_and_precisions(out, "fpgacnn-camera");
}

TEST_F(CameraHttp, BadInputsFailWithClearMessages) {
    const std::string app = app_path("camera", "fpgacnn-camera");
    const std::string model = " --cfg " + model_->cfg + " --weights " + model_->weights;
    std::string out;
    std::string err;
    EXPECT_EQ(run_command(app + model + " --input /nonexistent/clip.avi --port 0", &out, &err), 1);
    EXPECT_NE(err.find("/nonexistent/clip.avi"), std::string::npos) << err;
    EXPECT_EQ(run_command(app + model + " --input " + video_ + " --port 0 --bind not-an-address", &out, &err),
              1);
    EXPECT_NE(err.find("--bind not-an-address"), std::string::npos) << err;
    EXPECT_EQ(
        run_command("env -u DISPLAY -u WAYLAND_DISPLAY " + app + model + " --input " + video_ + " --show",
                    &out, &err),
        1);
    EXPECT_NE(err.find("--show needs a display"), std::string::npos) << err;
    EXPECT_EQ(run_command(app + model + " --input " + video_ + " --port 70000", &out, &err), 2);
    EXPECT_EQ(run_command(app + " --port 0", &out, &err), 2);  // --input, --cfg, --weights missing
}

// YOLOv3-tiny (two [yolo] heads, upsample, route; Debian's cfg with synthetic weights, so the classes mean
// nothing): every event carries exactly the detections the library's Detector finds on the same decoded
// frame, i.e. the decode and NMS over both heads reach the page unchanged.
bool same_detections(const nlohmann::json& got, const std::vector<fpgacnn::Detection>& expected) {
    if (got.size() != expected.size()) return false;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const fpgacnn::Detection& d = expected[i];
        if (got[i]["class_id"].get<int>() != d.class_id ||
            std::fabs(got[i]["prob"].get<double>() - d.prob) > 1e-4 || got[i]["left"].get<int>() != d.left ||
            got[i]["top"].get<int>() != d.top || got[i]["right"].get<int>() != d.right ||
            got[i]["bottom"].get<int>() != d.bottom) {
            return false;
        }
    }
    return true;
}

TEST(CameraYolov3Tiny, EventsCarryTheLibrarysDetectionsOfEachFrame) {
    const std::string dir = scratch_dir("camera_yolov3_tiny");
    const std::string cfg = fpgacnn::test::darknet_file("cfg/yolov3-tiny.cfg");
    const std::string names = fpgacnn::test::darknet_file("data/coco.names");
    const std::string weights = dir + "/yolov3-tiny-synthetic.weights";
    fpgacnn::Network network = fpgacnn::load_darknet_cfg(cfg);
    fpgacnn::fill_synthetic_weights(network, 2024);
    fpgacnn::save_darknet_weights(network, weights);
    const int frames_each = 5;
    const std::string video = make_test_video(dir, frames_each);

    // Every frame as the app decodes it (MJPEG frames of one picture still decode a little differently),
    // and the library's detections on it.
    cv::VideoCapture capture(video);
    fpgacnn::Detector detector(fpgacnn::load_darknet_model(cfg, weights), fpgacnn::load_class_names(names),
                               {});
    std::vector<std::vector<fpgacnn::Detection>> expected;
    for (cv::Mat frame; capture.read(frame);)
        expected.push_back(detector.detect(fpgacnn::rgb_pixels_from_bgr(frame)).detections);
    ASSERT_EQ(expected.size(), static_cast<std::size_t>(2 * frames_each));
    ASSERT_GT(expected.front().size(), 10u) << "synthetic weights give many boxes above 0.5";
    ASSERT_NE(expected.front().size(), expected.back().size()) << "dog and person frames differ";

    CameraProcess server(TrainedModel{cfg, weights, names}, video, {"--max-fps", "20"});
    Connection client(server.port());
    client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string received =
        client.read_until([](const std::string& text) { return parse_events(text).size() >= 12; }, 120s);
    const std::vector<nlohmann::json> events = parse_events(received);
    ASSERT_GE(events.size(), 12u) << server.log();
    for (const nlohmann::json& event : events) {
        // Frames count from 1 and the file loops: frame n shows the file's frame (n - 1) mod its length.
        const std::size_t index = (event["frame"].get<std::size_t>() - 1) % expected.size();
        EXPECT_TRUE(same_detections(event["detections"], expected[index]))
            << "frame " << event["frame"] << ": " << event["detections"].size() << " detections, the library "
            << expected[index].size();
    }
    EXPECT_EQ(server.stop(SIGTERM, 30s), 0) << server.log();
}

}  // namespace

// Connections that have not sent a complete request do not occupy the streaming-client slots
// (issue 13: 200 idle sockets used to lock a real viewer out with 503 until the header timeout),
// while --max-clients still bounds the feeds themselves.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "camera_process.hpp"
#include "test_paths.hpp"

using namespace fpgacnn::test::camera;
using fpgacnn::test::scratch_dir;
using namespace std::chrono_literals;

namespace {

class CameraSlots : public ::testing::Test {
protected:
    void SetUp() override {
        model_ = yolo_lite_model();
        if (!model_) GTEST_SKIP() << "shared/models/yolo-lite-voc not found (set FPGACNN_SHARED_DIR)";
        video_ = make_test_video(scratch_dir("camera_slots_video"));
    }

    /// Opens /stream and returns the connection with the response's status.
    static int open_stream(Connection& viewer) {
        viewer.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
        const std::string received = viewer.read_until(
            [](const std::string& text) { return text.find("\r\n\r\n") != std::string::npos; }, 30s);
        return status_of(received);
    }

    std::optional<TrainedModel> model_;
    std::string video_;
};

TEST_F(CameraSlots, IdleSocketsDoNotLockAViewerOut) {
    CameraProcess server(*model_, video_, {"--max-fps", "20", "--max-clients", "100"});
    std::vector<std::unique_ptr<Connection>> idle;
    for (int i = 0; i < 200; ++i) {
        idle.push_back(std::make_unique<Connection>(server.port()));
        if (i % 2 == 1) idle.back()->send("GET /stre");  // half a request line: still not a request
    }
    // The server accepts in connection order, so the viewer is handled after every idle socket.
    Connection viewer(server.port());
    EXPECT_EQ(open_stream(viewer), 200) << server.log();
    EXPECT_TRUE(server.running());
}

TEST_F(CameraSlots, FeedsBeyondMaxClientsStillGet503) {
    CameraProcess server(*model_, video_, {"--max-fps", "20", "--max-clients", "2"});
    Connection first(server.port());
    Connection second(server.port());
    ASSERT_EQ(open_stream(first), 200) << server.log();
    ASSERT_EQ(open_stream(second), 200) << server.log();
    Connection third(server.port());
    EXPECT_EQ(open_stream(third), 503) << server.log();
}

}  // namespace

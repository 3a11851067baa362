// The viewer page in a real browser: headless Chromium opens fpgacnn-camera's page and the test
// watches the live DOM: stream frames arrive (the <img> keeps changing) and the detection list
// fed by /events updates with the video's content.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "camera_process.hpp"
#include "headless_chromium.hpp"
#include "test_paths.hpp"

using namespace fpgacnn::test::camera;
using fpgacnn::test::scratch_dir;
using namespace std::chrono_literals;

namespace {

// The page's own counters and list (ids from apps/camera/page.html).
// null until the page has loaded.
constexpr const char* kPageState = R"js(document.getElementById("list-updates") === null ? null : ({
  status: document.getElementById("status").textContent,
  events: Number(document.getElementById("events-received").textContent),
  frames: Number(document.getElementById("frames-seen").textContent),
  updates: Number(document.getElementById("list-updates").textContent),
  size: document.getElementById("stream-size").textContent,
  fps: document.getElementById("fps").textContent,
  items: Array.from(document.querySelectorAll("#detections li"), (li) => li.textContent)
}))js";

TEST(CameraBrowser, PageShowsLiveFramesAndAnUpdatingDetectionList) {
    if (chromium_path().empty())
        GTEST_SKIP()
            << "chromium is not installed (apt-get install chromium; scripts/install-deps.sh --with-tests)";
    const std::optional<TrainedModel> model = yolo_lite_model();
    if (!model) GTEST_SKIP() << "shared/models/yolo-lite-voc not found (set FPGACNN_SHARED_DIR)";
    const std::string video = make_test_video(scratch_dir("camera_browser_video"));
    CameraProcess server(*model, video, {"--max-fps", "10"});
    HeadlessChromium browser(server.url(), scratch_dir("chromium_profile"));

    // The video alternates dog.jpg and person.jpg every second, so the list must change.
    std::set<std::string> classes_listed;
    nlohmann::json state;
    const auto deadline = std::chrono::steady_clock::now() + 90s;
    while (std::chrono::steady_clock::now() < deadline) {
        state = browser.evaluate(kPageState);
        if (state.is_null()) {
            std::this_thread::sleep_for(200ms);
            continue;
        }
        for (const auto& item : state["items"]) {
            const std::string text = item.get<std::string>();
            classes_listed.insert(text.substr(0, text.find(' ')));
        }
        if (state["frames"].get<int>() >= 10 && state["updates"].get<int>() >= 4 &&
            classes_listed.count("dog") && classes_listed.count("person"))
            break;
        std::this_thread::sleep_for(200ms);
    }
    SCOPED_TRACE("last page state: " + state.dump() + "\nserver log:\n" + server.log());
    ASSERT_FALSE(state.is_null()) << "the page never loaded";
    EXPECT_EQ(state["status"], "live");
    EXPECT_GE(state["events"].get<int>(), 10);
    EXPECT_GE(state["frames"].get<int>(), 10) << "the <img> showed at least 10 different stream frames";
    EXPECT_EQ(state["size"], "640x480");
    EXPECT_GE(state["updates"].get<int>(), 4) << "the detection list changed as the video played";
    EXPECT_TRUE(classes_listed.count("dog"));
    EXPECT_TRUE(classes_listed.count("person"));
    EXPECT_NE(state["fps"], "\u2013");

    const std::string png = browser.screenshot_png();
    ASSERT_GT(png.size(), 8u);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    // For docs/tools/fpgacnn-camera.md: FPGACNN_CAMERA_SCREENSHOT=/tmp/camera.png keeps a copy.
    if (const char* keep = std::getenv("FPGACNN_CAMERA_SCREENSHOT"))
        std::ofstream(keep, std::ios::binary) << png;
}

}  // namespace

// fpgacnn-camera under load: 50 clients reading /stream and one that never reads, for 30 s. The
// server's memory must stay bounded (slow clients lose frames instead of queueing them) and it
// must still serve a fresh client at the end.
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <regex>
#include <thread>
#include <vector>

#include "camera_process.hpp"
#include "test_paths.hpp"

using namespace fpgacnn::test::camera;
using fpgacnn::test::scratch_dir;
using namespace std::chrono_literals;

namespace {

constexpr int kReaders = 50;
constexpr auto kDuration = 30s;
constexpr auto kWarmUp = 5s;
// Growth allowed after warm-up. An unbounded per-client queue would keep every frame the silent
// client missed: at 20 fps of ~60 KB JPEGs that is ~1.2 MB/s, ~30 MB over the run.
constexpr long kRssMarginKib = 12 * 1024;

// Counts multipart boundaries in a byte stream that arrives in arbitrary pieces.
class BoundaryCounter {
public:
    void feed(const char* data, std::size_t size) {
        tail_.append(data, size);
        frames_ += count_of(tail_, kBoundary);
        const std::size_t keep = std::min(tail_.size(), kBoundary.size() - 1);
        tail_.erase(0, tail_.size() - keep);
    }
    std::size_t frames() const { return frames_; }

private:
    inline static const std::string kBoundary = "--fpgacnnframe\r\n";
    std::string tail_;
    std::size_t frames_ = 0;
};

TEST(CameraLoad, FiftyReadersAndOneSilentClientKeepMemoryBounded) {
    const std::optional<TrainedModel> model = yolo_lite_model();
    if (!model) GTEST_SKIP() << "shared/models/yolo-lite-voc not found (set FPGACNN_SHARED_DIR)";
    const std::string video = make_test_video(scratch_dir("camera_load_video"));
    CameraProcess server(*model, video, {"--max-fps", "20", "--jpeg-quality", "90"});

    // The silent client: a tiny receive window so its backlog reaches the server quickly.
    Connection silent(server.port());
    const int small = 4096;
    ::setsockopt(silent.fd(), SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    silent.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");

    std::vector<std::unique_ptr<Connection>> readers;
    for (int i = 0; i < kReaders; ++i) {
        readers.push_back(std::make_unique<Connection>(server.port()));
        readers.back()->send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    }
    std::vector<BoundaryCounter> counters(kReaders);
    std::vector<pollfd> fds;
    fds.reserve(readers.size());
    for (const auto& reader : readers) fds.push_back({reader->fd(), POLLIN, 0});

    const auto start = std::chrono::steady_clock::now();
    auto next_sample = start + kWarmUp;
    long baseline_kib = -1;
    long peak_kib = 0;
    std::vector<long> samples;
    std::vector<char> buffer(256 * 1024);
    int closed = 0;
    while (std::chrono::steady_clock::now() - start < kDuration) {
        if (::poll(fds.data(), fds.size(), 100) > 0) {
            for (std::size_t i = 0; i < fds.size(); ++i) {
                if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
                const ssize_t n = ::recv(fds[i].fd, buffer.data(), buffer.size(), 0);
                if (n > 0) {
                    counters[i].feed(buffer.data(), static_cast<std::size_t>(n));
                } else {
                    fds[i].fd = -1;  // poll ignores it from now on
                    ++closed;
                }
            }
        }
        if (std::chrono::steady_clock::now() >= next_sample) {
            next_sample += 500ms;
            const long rss = server.rss_kib();
            ASSERT_GT(rss, 0) << "the server died\n" << server.log();
            samples.push_back(rss);
            if (baseline_kib < 0) baseline_kib = rss;
            peak_kib = std::max(peak_kib, rss);
        }
    }
    EXPECT_EQ(closed, 0) << "reading clients were disconnected\n" << server.log();
    std::size_t least = counters.front().frames();
    for (const BoundaryCounter& counter : counters) least = std::min(least, counter.frames());
    std::cout << "[ load     ] " << kReaders << " readers, least frames received " << least
              << "; RSS baseline " << baseline_kib << " KiB, peak " << peak_kib << " KiB, last "
              << samples.back() << " KiB over " << samples.size() << " samples\n";
    EXPECT_GE(least, 20u) << "every reader gets a steady stream of frames";
    EXPECT_LT(peak_kib, baseline_kib + kRssMarginKib) << "memory grew under load";

    // Still serving: a fresh client receives frames.
    Connection fresh(server.port());
    fresh.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string frames = fresh.read_until(
        [](const std::string& text) { return count_of(text, "--fpgacnnframe\r\n") >= 3; }, 30s);
    EXPECT_GE(count_of(frames, "--fpgacnnframe\r\n"), 3u);

    readers.clear();
    EXPECT_EQ(server.stop(SIGTERM, 15s), 0) << server.log();
    // The silent client's queue dropped frames rather than growing (the server reports the count).
    std::smatch lost;
    const std::string log = server.log();
    ASSERT_TRUE(std::regex_search(log, lost, std::regex("slow clients lost (\\d+)"))) << log;
    std::cout << "[ load     ] slow clients lost " << lost[1].str() << " frames\n";
    EXPECT_GT(std::stoul(lost[1].str()), 100u) << log;
}

}  // namespace

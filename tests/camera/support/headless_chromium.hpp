// Debian's Chromium driven over the DevTools protocol (--remote-debugging-pipe: JSON messages on
// fds 3/4, no WebSocket needed), so a test can read a live page's DOM while it keeps streaming.
// A page with an endless MJPEG <img> never finishes loading, which rules out --dump-dom.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

namespace fpgacnn::test::camera {

/// Chromium's path, or empty when it is not installed.
std::string chromium_path();

class HeadlessChromium {
public:
    /// Starts Chromium headless (fresh profile in `profile_dir`) and opens `url` in a
    /// `width` x `height` window. Throws std::runtime_error when it does not answer in 60 s.
    HeadlessChromium(const std::string& url, const std::string& profile_dir, int width = 1280,
                     int height = 800);
    ~HeadlessChromium();
    HeadlessChromium(const HeadlessChromium&) = delete;
    HeadlessChromium& operator=(const HeadlessChromium&) = delete;

    /// Evaluates a JavaScript expression in the page; returns its value (JSON-serialisable).
    nlohmann::json evaluate(const std::string& expression);
    /// A PNG of the visible page (decoded from the protocol's base64).
    std::string screenshot_png();

private:
    /// Sends a command (to the page's session unless `browser_level`) and waits for its reply.
    nlohmann::json call(const std::string& method, const nlohmann::json& params, bool browser_level = false);
    nlohmann::json read_reply(int id, std::chrono::steady_clock::time_point deadline);

    pid_t pid_ = -1;
    int to_browser_ = -1;
    int from_browser_ = -1;
    int next_id_ = 1;
    std::string session_;
    std::string pending_;  // bytes read past the last complete message
};

}  // namespace fpgacnn::test::camera

#include "headless_chromium.hpp"

#include "camera_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace fpgacnn::test::camera {

namespace {

constexpr auto kReplyDeadline = std::chrono::seconds(60);

std::string base64_decode(const std::string& text) {
    static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned value = 0;
    int bits = -8;
    for (const char c : text) {
        const std::size_t digit = alphabet.find(c);
        if (digit == std::string::npos) break;  // '=' padding ends the data
        value = (value << 6) | static_cast<unsigned>(digit);
        bits += 6;
        if (bits >= 0) {
            out.push_back(static_cast<char>((value >> bits) & 0xff));
            bits -= 8;
        }
    }
    return out;
}

}  // namespace

std::string chromium_path() {
    for (const char* candidate : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
        if (fs::exists(candidate)) return candidate;
    }
    return {};
}

HeadlessChromium::HeadlessChromium(const std::string& url, const std::string& profile_dir, int width,
                                   int height) {
    const std::string binary = chromium_path();
    if (binary.empty()) throw std::runtime_error("chromium is not installed");
    std::vector<std::string> args = {binary,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--disable-quic",
                                     "--no-first-run",
                                     "--disable-background-networking",
                                     "--disable-component-update",
                                     "--disable-sync",
                                     "--disable-dev-shm-usage",
                                     "--remote-debugging-pipe",
                                     "--user-data-dir=" + profile_dir,
                                     "--window-size=" + std::to_string(width) + "," + std::to_string(height),
                                     "about:blank"};
    std::vector<char*> argv = exec_argv(args);
    const std::string log = profile_dir + "/chromium.log";

    int commands[2];  // test -> browser (its fd 3)
    int replies[2];   // browser -> test (its fd 4)
    if (::pipe2(commands, O_CLOEXEC) != 0 || ::pipe2(replies, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        // Moved out of the way first: a pipe end may itself be fd 3 or 4, and dup2 onto itself
        // would keep O_CLOEXEC. dup2 to another number clears it on the copy.
        const int read_end = ::fcntl(commands[0], F_DUPFD_CLOEXEC, 10);
        const int write_end = ::fcntl(replies[1], F_DUPFD_CLOEXEC, 10);
        ::dup2(read_end, 3);
        ::dup2(write_end, 4);
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out >= 0) {
            ::dup2(out, STDOUT_FILENO);
            ::dup2(out, STDERR_FILENO);
        }
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(commands[0]);
    ::close(replies[1]);
    to_browser_ = commands[1];
    from_browser_ = replies[0];

    const nlohmann::json target = call("Target.createTarget", {{"url", url}}, true);
    const nlohmann::json attached =
        call("Target.attachToTarget", {{"targetId", target.at("targetId")}, {"flatten", true}}, true);
    session_ = attached.at("sessionId").get<std::string>();
}

HeadlessChromium::~HeadlessChromium() {
    if (pid_ > 0) {
        try {
            call("Browser.close", nlohmann::json::object(), true);
        } catch (const std::exception&) {
            // It is killed below either way.
        }
        int status = 0;
        for (int i = 0; i < 100 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (::waitpid(pid_, &status, WNOHANG) == 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &status, 0);
        }
    }
    if (to_browser_ >= 0) ::close(to_browser_);
    if (from_browser_ >= 0) ::close(from_browser_);
}

nlohmann::json HeadlessChromium::call(const std::string& method, const nlohmann::json& params,
                                      bool browser_level) {
    const int id = next_id_++;
    nlohmann::json message = {{"id", id}, {"method", method}, {"params", params}};
    if (!browser_level) message["sessionId"] = session_;
    std::string bytes = message.dump();
    bytes.push_back('\0');  // the pipe transport's message separator
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::write(to_browser_, bytes.data() + sent, bytes.size() - sent);
        if (n <= 0) throw std::runtime_error("chromium closed its DevTools pipe");
        sent += static_cast<std::size_t>(n);
    }
    const nlohmann::json reply = read_reply(id, std::chrono::steady_clock::now() + kReplyDeadline);
    if (reply.contains("error")) throw std::runtime_error(method + " failed: " + reply["error"].dump());
    return reply.value("result", nlohmann::json::object());
}

nlohmann::json HeadlessChromium::read_reply(int id, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        // Events (no "id") and other replies are skipped.
        for (std::size_t end = pending_.find('\0'); end != std::string::npos; end = pending_.find('\0')) {
            nlohmann::json message = nlohmann::json::parse(pending_.substr(0, end));
            pending_.erase(0, end + 1);
            if (message.value("id", -1) == id) return message;
        }
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            throw std::runtime_error("chromium did not answer DevTools command " + std::to_string(id));
        pollfd p{from_browser_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        char buffer[65536];
        const ssize_t n = ::read(from_browser_, buffer, sizeof(buffer));
        if (n <= 0) throw std::runtime_error("chromium exited (DevTools pipe closed)");
        pending_.append(buffer, static_cast<std::size_t>(n));
    }
}

nlohmann::json HeadlessChromium::evaluate(const std::string& expression) {
    const nlohmann::json result =
        call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}});
    if (result.contains("exceptionDetails"))
        throw std::runtime_error("page script failed: " + result["exceptionDetails"].dump());
    return result.at("result").value("value", nlohmann::json());
}

std::string HeadlessChromium::screenshot_png() {
    const nlohmann::json result = call("Page.captureScreenshot", {{"format", "png"}});
    return base64_decode(result.at("data").get<std::string>());
}

}  // namespace fpgacnn::test::camera

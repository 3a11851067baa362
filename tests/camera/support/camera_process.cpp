#include "camera_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "test_paths.hpp"

namespace fs = std::filesystem;

namespace fpgacnn::test::camera {

std::vector<char*> exec_argv(std::vector<std::string>& args) {
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    return argv;
}

std::optional<TrainedModel> yolo_lite_model() {
    const std::string cfg = shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.cfg");
    if (cfg.empty() || !fs::exists(cfg)) return std::nullopt;
    return TrainedModel{cfg, shared_model_file("yolo-lite-voc", "tiny-yolov2-trial3-noBatch.weights"),
                        shared_model_file("yolo-lite-voc", "voc.names")};
}

std::string make_test_video(const std::string& dir, int frames_each) {
    std::string path = dir + "/dog_person.avi";
    const cv::Size size(640, 480);
    cv::VideoWriter writer(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0, size);
    if (!writer.isOpened()) throw std::runtime_error("cannot write " + path);
    for (const char* name : {"data/dog.jpg", "data/person.jpg"}) {
        cv::Mat image = cv::imread(darknet_file(name), cv::IMREAD_COLOR);
        if (image.empty()) throw std::runtime_error("cannot read " + darknet_file(name));
        cv::resize(image, image, size);
        for (int i = 0; i < frames_each; ++i) writer.write(image);
    }
    return path;
}

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

CameraProcess::CameraProcess(const TrainedModel& model, const std::string& video,
                             const std::vector<std::string>& extra) {
    std::vector<std::string> args = {app_path("camera", "fpgacnn-camera"),
                                     "--cfg",
                                     model.cfg,
                                     "--weights",
                                     model.weights,
                                     "--names",
                                     model.names,
                                     "--device",
                                     "cpu",
                                     "--precision",
                                     "float",
                                     "--input",
                                     video,
                                     "--bind",
                                     "127.0.0.1",
                                     "--port",
                                     "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    static int instances = 0;
    log_path_ = scratch_dir("camera_log_" + std::to_string(instances++)) + "/stderr.log";
    // Everything the child needs is prepared before fork(): only async-signal-safe calls after it.
    std::vector<char*> argv = exec_argv(args);

    int out[2];
    if (::pipe(out) != 0) throw std::runtime_error("pipe failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        ::dup2(out[1], STDOUT_FILENO);
        const int err = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (err >= 0) ::dup2(err, STDERR_FILENO);
        ::close(out[0]);
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(out[1]);

    // The first stdout line announces the port.
    std::string text;
    const std::regex listening(R"(listening on http://127\.0\.0\.1:(\d+)/)");
    std::smatch match;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::regex_search(text, match, listening) && std::chrono::steady_clock::now() < end) {
        pollfd p{out[0], POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0) continue;
        char buffer[512];
        const ssize_t n = ::read(out[0], buffer, sizeof(buffer));
        if (n <= 0) break;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    ::close(out[0]);
    if (match.empty()) {
        stop(SIGKILL, std::chrono::seconds(5));
        throw std::runtime_error("fpgacnn-camera did not announce its port; stdout: " + text +
                                 "\nstderr: " + log());
    }
    port_ = static_cast<unsigned short>(std::stoi(match[1].str()));
}

CameraProcess::~CameraProcess() {
    if (running()) stop(SIGKILL, std::chrono::seconds(5));
}

std::string CameraProcess::url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }

bool CameraProcess::running() {
    if (exit_code_) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return false;
    }
    return true;
}

int CameraProcess::wait_exit(std::chrono::seconds deadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (running()) {
        if (std::chrono::steady_clock::now() > end) return -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return *exit_code_;
}

int CameraProcess::stop(int signal, std::chrono::seconds deadline) {
    if (!running()) return *exit_code_;
    ::kill(pid_, signal);
    const int code = wait_exit(deadline);
    if (code >= 0) return code;
    ::kill(pid_, SIGKILL);
    wait_exit(std::chrono::seconds(10));
    return -1;
}

std::string CameraProcess::log() const { return read_file(log_path_); }

long CameraProcess::rss_kib() const {
    std::istringstream status(read_file("/proc/" + std::to_string(pid_) + "/status"));
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
}

Connection::Connection(unsigned short port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0)
        throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port) + ": " +
                                 std::strerror(errno));
}

Connection::~Connection() {
    if (fd_ >= 0) ::close(fd_);
}

bool Connection::send(const std::string& bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

long Connection::read_some(std::string& into, std::chrono::milliseconds wait, std::size_t max) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return -1;
    std::string buffer(max, '\0');
    const ssize_t n = ::recv(fd_, buffer.data(), max, 0);
    if (n <= 0) return 0;
    into.append(buffer.data(), static_cast<std::size_t>(n));
    return n;
}

std::size_t Connection::drain(std::chrono::milliseconds window) {
    std::string sink;
    std::size_t total = 0;
    const auto end = std::chrono::steady_clock::now() + window;
    while (std::chrono::steady_clock::now() < end) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        const long n = read_some(sink, std::max(left, std::chrono::milliseconds(1)));
        if (n == 0) break;
        if (n > 0) total += static_cast<std::size_t>(n);
        sink.clear();
    }
    return total;
}

std::string Connection::read_all(std::chrono::milliseconds deadline) {
    return read_until([](const std::string&) { return false; }, deadline);
}

bool Connection::closed_by_peer(std::chrono::milliseconds deadline) {
    std::string sink;
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (read_some(sink, std::max(left, std::chrono::milliseconds(1))) == 0) return true;
        sink.clear();
    }
    return false;
}

std::string http_get(unsigned short port, const std::string& target) {
    Connection connection(port);
    connection.send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    return connection.read_all(std::chrono::seconds(20));
}

int status_of(const std::string& response) {
    static const std::regex status_line(R"(^HTTP/1\.[01] (\d{3}) )");
    std::smatch match;
    if (!std::regex_search(response, match, status_line)) return 0;
    return std::stoi(match[1].str());
}

std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + needle.size()))
        ++count;
    return count;
}

}  // namespace fpgacnn::test::camera

// Test support for fpgacnn-camera: a test video, the server as a child process, and a minimal
// HTTP client on raw sockets (so malformed requests can be sent byte for byte).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace fpgacnn::test::camera {

/// YOLO-LITE VOC from shared/models (cfg, weights, names); empty strings when shared/ is absent.
struct TrainedModel {
    std::string cfg;
    std::string weights;
    std::string names;
};
std::optional<TrainedModel> yolo_lite_model();

/// Writes an MJPEG .avi into `dir`: darknet's dog.jpg then person.jpg, `frames_each` frames each,
/// so the detections change while it plays. Returns its path.
std::string make_test_video(const std::string& dir, int frames_each = 10);

/// fpgacnn-camera running as a child process, on a free port of 127.0.0.1.
class CameraProcess {
public:
    /// Starts the app with the model, `--input video --bind 127.0.0.1 --port 0` and `extra`
    /// arguments, and waits (up to 60 s) for its "listening on" line.
    CameraProcess(const TrainedModel& model, const std::string& video, const std::vector<std::string>& extra);
    ~CameraProcess();
    CameraProcess(const CameraProcess&) = delete;
    CameraProcess& operator=(const CameraProcess&) = delete;

    pid_t pid() const { return pid_; }
    unsigned short port() const { return port_; }
    std::string url() const;
    /// Sends `signal` and waits up to `deadline`; returns the exit code, or -1 (killed) on timeout.
    int stop(int signal, std::chrono::seconds deadline);
    /// Waits up to `deadline` for the process to exit by itself; the exit code or -1.
    int wait_exit(std::chrono::seconds deadline);
    bool running();
    /// Everything it wrote to stderr so far.
    std::string log() const;
    /// VmRSS from /proc/<pid>/status, in KiB.
    long rss_kib() const;

private:
    pid_t pid_ = -1;
    unsigned short port_ = 0;
    std::string log_path_;
    std::optional<int> exit_code_;
};

/// A connected TCP socket to 127.0.0.1:port, closed on destruction. Every read is bounded by a deadline.
class Connection {
public:
    explicit Connection(unsigned short port);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// Sends all bytes; false when the peer closed.
    bool send(const std::string& bytes);
    /// Reads until `done(received)` holds, the peer closes, or `deadline` passes; returns what it got.
    template <typename Done>
    std::string read_until(Done done, std::chrono::milliseconds deadline);
    /// Reads whatever arrives within `window` (for draining a feed).
    std::size_t drain(std::chrono::milliseconds window);
    /// Reads until the peer closes (or the deadline).
    std::string read_all(std::chrono::milliseconds deadline);
    /// True when the peer has closed (a read returns 0) within `deadline`.
    bool closed_by_peer(std::chrono::milliseconds deadline);
    int fd() const { return fd_; }

private:
    /// One read of at most `max` bytes, waiting at most `wait`; -1 timeout, 0 closed.
    long read_some(std::string& into, std::chrono::milliseconds wait, std::size_t max = 65536);
    int fd_ = -1;
};

template <typename Done>
std::string Connection::read_until(Done done, std::chrono::milliseconds deadline) {
    std::string received;
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (!done(received)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        if (read_some(received, left) == 0) break;
    }
    return received;
}

/// "GET <target>" with Connection: close; returns the whole response (status line to end).
std::string http_get(unsigned short port, const std::string& target);
/// The status code of a raw HTTP response ("HTTP/1.1 404 ..." -> 404); 0 when there is none.
int status_of(const std::string& response);

/// execv's argument vector pointing into `args` (null-terminated); build it before fork().
std::vector<char*> exec_argv(std::vector<std::string>& args);

/// Number of times `needle` occurs in `text`.
std::size_t count_of(const std::string& text, const std::string& needle);

}  // namespace fpgacnn::test::camera

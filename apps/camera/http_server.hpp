// The camera demo's HTTP server (Boost.Asio + Beast, all in http_server.cpp so Beast is compiled
// once): `/` the viewer page, `/stream` MJPEG, `/events` Server-Sent Events. One I/O thread owns
// every connection; frames arrive from the pipeline thread through publish().
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "published_frame.hpp"

namespace fpgacnn::camera {

struct ServerOptions {
    std::string bind = "127.0.0.1";
    unsigned short port = 8080;           // 0: the system picks a free port (see HttpServer::port)
    std::size_t client_queue = 2;         // pending frames per client before the oldest is dropped
    std::size_t max_clients = 100;        // /stream and /events feeds at once; more get 503
    std::chrono::seconds keep_alive{15};  // SSE comment interval, so proxies keep idle feeds open
};

struct ServerStats {
    std::uint64_t published = 0;        // frames handed to the server
    std::uint64_t dropped_backlog = 0;  // frames skipped because the I/O thread itself fell behind
    std::uint64_t dropped_clients = 0;  // frames slow clients lost (summed over closed clients)
    std::uint64_t bad_requests = 0;     // answered 400
};

class HttpServer {
public:
    /// Binds and listens; throws Error naming the address when it cannot. SIGINT and SIGTERM are
    /// caught from here on (they start a clean shutdown).
    HttpServer(ServerOptions options, std::string page);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    unsigned short port() const;
    /// "http://<bind>:<port>/".
    std::string url() const;

    /// Starts the I/O thread. `on_shutdown` runs (on the I/O thread) once when the shutdown starts,
    /// whether from a signal or from shutdown().
    void start(std::function<void(const std::string& reason)> on_shutdown);
    /// Thread-safe; never blocks. Frames beyond a small backlog are dropped.
    void publish(PublishedFrame frame);
    /// Thread-safe, idempotent: stops accepting, closes every client.
    void shutdown(const std::string& reason);
    /// Blocks until a shutdown begins, then waits (at most 5 s) for the I/O thread to finish.
    void wait();
    /// Read after wait().
    ServerStats stats() const;

private:
    class Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace fpgacnn::camera

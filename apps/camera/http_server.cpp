#include "http_server.hpp"

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "bounded_queue.hpp"
#include "fpgacnn/error.hpp"
#include "http_listener.hpp"
#include "request_route.hpp"

namespace fpgacnn::camera {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using fpgacnn::http::is_parse_error;
using fpgacnn::http::to_std;
using tcp = asio::ip::tcp;
using Bytes = std::shared_ptr<const std::string>;

namespace {

constexpr std::size_t kHeaderLimit = kRequestHeaderLimit;
constexpr std::size_t kBodyLimit = kRequestBodyLimit;
constexpr auto kRequestTimeout = std::chrono::seconds(10);
// A streaming client that accepts no byte for this long is gone (or hostile): close it.
constexpr auto kWriteStall = std::chrono::seconds(60);
constexpr std::size_t kMaxPendingPublishes = 4;
constexpr auto kShutdownDeadline = std::chrono::seconds(5);

enum class Feed { None, Stream, Events };

std::string feed_headers(Feed feed) {
    const char* type = feed == Feed::Stream ? "multipart/x-mixed-replace; boundary=" : "text/event-stream";
    const char* boundary = feed == Feed::Stream ? kStreamBoundary : "";
    // Connection: close - a feed never ends, so the connection cannot be reused anyway.
    std::string text = fmt::format(
        "HTTP/1.1 200 OK\r\nContent-Type: {}{}\r\nCache-Control: no-cache, no-store\r\nPragma: no-cache\r\n"
        "Connection: close\r\nX-Accel-Buffering: no\r\n\r\n",
        type, boundary);
    if (feed == Feed::Events) text += "retry: 2000\n\n";  // EventSource reconnects after 2 s
    return text;
}

}  // namespace

class HttpServer::Impl : public std::enable_shared_from_this<HttpServer::Impl> {
public:
    class Session;

    Impl(ServerOptions options, std::string page)
        : options_(std::move(options)),
          page_(std::move(page)),
          acceptor_(io_),
          signals_(io_, SIGINT, SIGTERM),
          keep_alive_timer_(io_),
          accept_retry_timer_(io_) {
        listen();
    }

    void listen();
    void start(std::function<void(const std::string&)> on_shutdown);
    void publish(PublishedFrame frame);
    void shutdown(const std::string& reason);
    void wait();

    void accept();
    void broadcast(const PublishedFrame& frame);
    void keep_alive();
    void begin_shutdown(const std::string& reason);
    std::size_t live_sessions();
    std::size_t streaming_clients();
    template <typename Change>
    void mark(Change change) {
        {
            std::lock_guard<std::mutex> lock(state_mutex_);
            change(*this);
        }
        state_changed_.notify_all();
    }

    ServerOptions options_;
    std::string page_;
    asio::io_context io_;
    tcp::acceptor acceptor_;
    asio::signal_set signals_;
    asio::steady_timer keep_alive_timer_;
    asio::steady_timer accept_retry_timer_;
    std::thread thread_;
    std::promise<void> finished_;
    std::mutex state_mutex_;
    std::condition_variable state_changed_;
    bool shutdown_started_ = false;  // guarded by state_mutex_: wait()'s bounded phase begins here
    bool io_finished_ = false;       // guarded by state_mutex_
    std::function<void(const std::string&)> on_shutdown_;
    bool stopping_ = false;  // I/O thread only
    unsigned short port_ = 0;
    std::unordered_map<Session*, std::weak_ptr<Session>> sessions_;  // I/O thread only
    std::optional<PublishedFrame> latest_;                           // I/O thread only
    std::atomic<std::size_t> pending_publishes_{0};
    std::atomic<std::uint64_t> published_{0};
    std::atomic<std::uint64_t> dropped_backlog_{0};
    std::atomic<std::uint64_t> dropped_clients_{0};
    std::atomic<std::uint64_t> bad_requests_{0};
};

// One connection: reads one request at a time; a feed request turns it into a subscriber whose
// bounded queue the server fills.
class HttpServer::Impl::Session : public std::enable_shared_from_this<Session> {
public:
    Session(tcp::socket socket, Impl& server)
        : stream_(std::move(socket)), server_(server), queue_(server.options_.client_queue) {}

    void start() { read_request(); }

    Feed feed() const { return feed_; }

    void offer(const Bytes& bytes) {
        if (closed_) return;
        queue_.push(bytes);
        if (!writing_) write_next();
    }

    void close() {
        if (closed_) return;
        closed_ = true;
        server_.dropped_clients_ += queue_.dropped();
        if (feed_ != Feed::None) {
            spdlog::debug("client {} left: {} sent, {} dropped", peer_, sent_, queue_.dropped());
        }
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        stream_.close();
    }

private:
    void read_request() {
        parser_.emplace();
        parser_->header_limit(kHeaderLimit);
        parser_->body_limit(kBodyLimit);
        stream_.expires_after(kRequestTimeout);
        http::async_read(
            stream_, buffer_, *parser_,
            [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_request(ec); });
    }

    void on_request(const beast::error_code& ec) {
        if (closed_) return;
        if (ec) {
            if (is_parse_error(ec)) {
                spdlog::debug("bad request: {}", ec.message());
                respond_error(http::status::bad_request, "malformed request: " + ec.message(), false);
            } else {
                close();  // the client left or timed out
            }
            return;
        }
        const auto& request = parser_->get();
        const Route route = route_request(to_std(request.method_string()), to_std(request.target()));
        switch (route) {
            case Route::Page:
                respond_page(request.version(), request.keep_alive());
                return;
            case Route::Stream:
                subscribe(Feed::Stream);
                return;
            case Route::Events:
                subscribe(Feed::Events);
                return;
            case Route::MethodNotAllowed:
                respond_error(http::status::method_not_allowed, "only GET is served here",
                              request.keep_alive());
                return;
            case Route::NotFound:
                respond_error(http::status::not_found, "not found: try / , /stream or /events",
                              request.keep_alive());
                return;
            case Route::BadRequest:
                respond_error(http::status::bad_request, "the request target must be a path", false);
                return;
        }
    }

    void respond_page(unsigned version, bool keep_alive) {
        auto response = std::make_shared<http::response<http::string_body>>(http::status::ok, version);
        response->set(http::field::content_type, "text/html; charset=utf-8");
        response->set(http::field::cache_control, "no-store");
        response->body() = server_.page_;
        send(response, keep_alive);
    }

    void respond_error(http::status status, const std::string& text, bool keep_alive) {
        if (status == http::status::bad_request) ++server_.bad_requests_;
        auto response = std::make_shared<http::response<http::string_body>>(status, 11);
        response->set(http::field::content_type, "text/plain; charset=utf-8");
        if (status == http::status::method_not_allowed) response->set(http::field::allow, "GET");
        response->body() = text + "\n";
        send(response, keep_alive);
    }

    void send(const std::shared_ptr<http::response<http::string_body>>& response, bool keep_alive) {
        response->set(http::field::server, "fpgacnn-camera");
        response->keep_alive(keep_alive);
        response->prepare_payload();
        stream_.expires_after(kRequestTimeout);
        http::async_write(
            stream_, *response,
            [self = shared_from_this(), response, keep_alive](beast::error_code ec, std::size_t) {
                if (ec || !keep_alive || self->closed_) return self->close();
                self->read_request();
            });
    }

    void subscribe(Feed feed) {
        // Only feeds occupy slots: connections that have not sent a complete request yet (idle or
        // slow sockets, bounded by kRequestTimeout) must not lock viewers out.
        if (server_.streaming_clients() >= server_.options_.max_clients) {
            respond_error(http::status::service_unavailable, "too many clients", false);
            return;
        }
        feed_ = feed;
        beast::error_code ignored;
        const auto endpoint = stream_.socket().remote_endpoint(ignored);
        peer_ = endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
        spdlog::debug("client {} opened {}", peer_, feed == Feed::Stream ? "/stream" : "/events");
        watch_for_hangup();
        // The headers go first, outside the queue, so a burst of frames can never drop them.
        writing_ = true;
        headers_ = std::make_shared<const std::string>(feed_headers(feed));
        write(headers_, false);
        if (server_.latest_)
            offer(feed == Feed::Stream ? server_.latest_->stream_part : server_.latest_->event);
    }

    // A feed client sends nothing after its request: a completed read means it hung up.
    void watch_for_hangup() {
        stream_.expires_never();
        stream_.async_read_some(asio::buffer(scratch_),
                                [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                    if (ec || self->closed_) return self->close();
                                    self->watch_for_hangup();
                                });
    }

    void write_next() {
        std::optional<Bytes> next = queue_.pop();
        if (!next) {
            writing_ = false;
            stream_.expires_never();
            return;
        }
        writing_ = true;
        write(*next, true);
    }

    void write(const Bytes& bytes, bool counts) {
        stream_.expires_after(kWriteStall);
        asio::async_write(stream_, asio::buffer(*bytes),
                          [self = shared_from_this(), bytes, counts](beast::error_code ec, std::size_t) {
                              if (ec || self->closed_) return self->close();
                              if (counts) ++self->sent_;
                              self->write_next();
                          });
    }

    beast::tcp_stream stream_;
    Impl& server_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    BoundedQueue<Bytes> queue_;
    Bytes headers_;
    Feed feed_ = Feed::None;
    bool writing_ = false;
    bool closed_ = false;
    std::uint64_t sent_ = 0;
    std::string peer_;
    std::array<char, 256> scratch_{};
};

void HttpServer::Impl::listen() {
    fpgacnn::http::listen_on(acceptor_, options_.bind, options_.port, "--port");
    port_ = acceptor_.local_endpoint().port();
}

void HttpServer::Impl::start(std::function<void(const std::string&)> on_shutdown) {
    on_shutdown_ = std::move(on_shutdown);
    signals_.async_wait([this](const beast::error_code& ec, int signal) {
        if (!ec) begin_shutdown(signal == SIGINT ? "SIGINT" : "SIGTERM");
    });
    accept();
    keep_alive();
    thread_ = std::thread([self = shared_from_this()] {
        try {
            self->io_.run();
        } catch (const std::exception& e) {
            spdlog::error("HTTP server stopped: {}", e.what());
        }
        self->mark([](Impl& impl) { impl.io_finished_ = true; });
        self->finished_.set_value();
    });
}

void HttpServer::Impl::accept() {
    acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
        if (stopping_) return;
        if (ec) {
            // Out of file descriptors and the like: keep serving the clients we have and try again
            // shortly (at once would spin on the same error).
            spdlog::warn("accept failed: {}; retrying in 1 s", ec.message());
            accept_retry_timer_.expires_after(std::chrono::seconds(1));
            accept_retry_timer_.async_wait([this](const beast::error_code& wait_error) {
                if (!wait_error && !stopping_) accept();
            });
            return;
        }
        auto session = std::make_shared<Session>(std::move(socket), *this);
        sessions_.emplace(session.get(), session);
        session->start();
        accept();
    });
}

std::size_t HttpServer::Impl::live_sessions() {
    for (auto it = sessions_.begin(); it != sessions_.end();) {
        it = it->second.expired() ? sessions_.erase(it) : std::next(it);
    }
    return sessions_.size();
}

std::size_t HttpServer::Impl::streaming_clients() {
    live_sessions();  // drops the closed ones
    std::size_t feeds = 0;
    for (auto& [raw, weak] : sessions_) {
        const std::shared_ptr<Session> session = weak.lock();
        if (session && session->feed() != Feed::None) ++feeds;
    }
    return feeds;
}

void HttpServer::Impl::publish(PublishedFrame frame) {
    ++published_;
    // The I/O thread normally drains this at once; if it falls behind, frames are dropped here so
    // the posted backlog (and memory) stays bounded.
    if (pending_publishes_.load() >= kMaxPendingPublishes) {
        ++dropped_backlog_;
        return;
    }
    ++pending_publishes_;
    asio::post(io_, [this, frame = std::move(frame)] {
        --pending_publishes_;
        broadcast(frame);
    });
}

void HttpServer::Impl::broadcast(const PublishedFrame& frame) {
    if (stopping_) return;
    latest_ = frame;
    live_sessions();
    for (auto& [raw, weak] : sessions_) {
        const std::shared_ptr<Session> session = weak.lock();
        if (!session) continue;
        if (session->feed() == Feed::Stream) session->offer(frame.stream_part);
        if (session->feed() == Feed::Events) session->offer(frame.event);
    }
}

void HttpServer::Impl::keep_alive() {
    keep_alive_timer_.expires_after(options_.keep_alive);
    keep_alive_timer_.async_wait([this](const beast::error_code& ec) {
        if (ec || stopping_) return;
        static const Bytes comment = std::make_shared<const std::string>(": keep-alive\n\n");
        for (auto& [raw, weak] : sessions_) {
            const std::shared_ptr<Session> session = weak.lock();
            if (session && session->feed() == Feed::Events) session->offer(comment);
        }
        keep_alive();
    });
}

void HttpServer::Impl::begin_shutdown(const std::string& reason) {
    if (stopping_) return;
    stopping_ = true;
    mark([](Impl& impl) { impl.shutdown_started_ = true; });
    spdlog::info("shutting down ({})", reason);
    if (on_shutdown_) on_shutdown_(reason);
    beast::error_code ignored;
    acceptor_.close(ignored);
    signals_.cancel(ignored);
    keep_alive_timer_.cancel();
    accept_retry_timer_.cancel();
    latest_.reset();
    for (auto& [raw, weak] : sessions_) {
        if (const std::shared_ptr<Session> session = weak.lock()) session->close();
    }
    // With every socket closed, the pending operations complete (aborted) and run() returns.
}

void HttpServer::Impl::shutdown(const std::string& reason) {
    asio::post(io_, [self = shared_from_this(), reason] { self->begin_shutdown(reason); });
}

void HttpServer::Impl::wait() {
    if (!thread_.joinable()) return;
    {
        // Serving has no end of its own: wait for a shutdown to begin (or the I/O thread to die).
        std::unique_lock<std::mutex> lock(state_mutex_);
        state_changed_.wait(lock, [this] { return shutdown_started_ || io_finished_; });
    }
    if (finished_.get_future().wait_for(kShutdownDeadline) != std::future_status::ready) {
        spdlog::warn("HTTP server did not finish within {} s; stopping it", kShutdownDeadline.count());
        io_.stop();
    }
    thread_.join();
}

HttpServer::HttpServer(ServerOptions options, std::string page)
    : impl_(std::make_shared<Impl>(std::move(options), std::move(page))) {}

HttpServer::~HttpServer() {
    if (impl_->thread_.joinable()) {
        impl_->shutdown("server destroyed");
        impl_->wait();
    }
}

unsigned short HttpServer::port() const { return impl_->port_; }

std::string HttpServer::url() const {
    return "http://" + fpgacnn::http::host_port(impl_->options_.bind, impl_->port_) + "/";
}

void HttpServer::start(std::function<void(const std::string&)> on_shutdown) {
    impl_->start(std::move(on_shutdown));
}

void HttpServer::publish(PublishedFrame frame) { impl_->publish(std::move(frame)); }

void HttpServer::shutdown(const std::string& reason) { impl_->shutdown(reason); }

void HttpServer::wait() { impl_->wait(); }

ServerStats HttpServer::stats() const {
    ServerStats stats;
    stats.published = impl_->published_;
    stats.dropped_backlog = impl_->dropped_backlog_;
    stats.dropped_clients = impl_->dropped_clients_;
    stats.bad_requests = impl_->bad_requests_;
    return stats;
}

}  // namespace fpgacnn::camera

// fpgacnn-serve's REST front end: the Open Inference Protocol's HTTP/REST routes and /metrics on
// Boost.Beast, listening through the plumbing it shares with the camera's server
// (apps/common/http_listener.hpp). Two I/O threads read and write every connection; an inference
// blocks in InferenceCore::infer until its result, so it runs on one of FrontEndOptions::threads
// pool threads, and one more is refused at once (503) rather than queued without bound — the
// probes, metadata and /metrics keep answering on the I/O threads meanwhile.
#include <spdlog/spdlog.h>

#include <array>
#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bearer_token.hpp"
#include "fpgacnn/error.hpp"
#include "front_end.hpp"
#include "http_listener.hpp"
#include "rest_messages.hpp"
#include "shared_memory_regions.hpp"

namespace fpgacnn::serve {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;
using fpgacnn::http::to_std;

/// Threads that read and write the sockets (the work itself runs on the inference pool).
constexpr int kIoThreads = 2;
constexpr std::size_t kHeaderLimit = 16 * 1024;
/// A request must arrive whole within this; an idle keep-alive connection closes after it.
constexpr auto kReadTimeout = std::chrono::seconds(30);
/// A client that takes no byte of its answer for this long is gone.
constexpr auto kWriteTimeout = std::chrono::seconds(60);
/// Open connections at once; more are closed at once (each costs a socket and a parse buffer).
constexpr std::size_t kMaxConnections = 1024;
/// How long a connection closed after an error still reads (and drops) what its client sends.
constexpr auto kLinger = std::chrono::seconds(10);
/// After the drain, how long the I/O threads may take to finish the closes before they are stopped.
constexpr auto kIoStopGrace = std::chrono::seconds(2);

/// What a route answers.
struct Answer {
    unsigned status = 200;
    std::string body;
    const char* content_type = "application/json";
    std::optional<std::size_t> json_length;  // the binary tensor data extension's header
    const char* allow = nullptr;             // a 405's Allow header
};

Answer make_answer(unsigned status, std::string body, const char* content_type = "application/json") {
    Answer answer;
    answer.status = status;
    answer.body = std::move(body);
    answer.content_type = content_type;
    return answer;
}

Answer error_answer(ErrorKind kind, const std::string& reason) {
    return make_answer(static_cast<unsigned>(http_status(kind)), error_to_json(reason));
}

template <typename Name>
std::optional<std::string_view> header_value(const Request& request, Name name) {
    const auto found = request.find(name);
    if (found == request.end()) return std::nullopt;
    return to_std(found->value());
}

/// What every connection shares: the core, the limits, the inference pool and the drain's state.
class Shared {
public:
    Shared(InferenceCore& core, const FrontEndOptions& options)
        : core_(core),
          options_(options),
          infer_threads_(std::max(options.threads, 1)),
          pool_(infer_threads_) {}

    /// The 401 of a request without the bearer token a route needs; nothing when it may pass.
    std::optional<Answer> refuse_unauthenticated(const RestRoute& route, const Request& request) const {
        if (rest_route_is_probe(route.kind)) return std::nullopt;
        try {
            check_bearer_token(options_.auth_token, header_value(request, bhttp::field::authorization),
                               "header");
        } catch (const ServeError& e) {
            return error_answer(e.kind(), e.what());
        }
        return std::nullopt;
    }

    /// A route other than infer (quick: answered on the I/O thread).
    Answer answer(const RestRoute& route, const Request& request) {
        if (auto refused = refuse_unauthenticated(route, request)) return *refused;
        try {
            switch (route.kind) {
                case RestRouteKind::Live:
                    return readiness(core_.live(), "live");
                case RestRouteKind::Ready:
                    return readiness(core_.ready(), "ready");
                case RestRouteKind::ServerMetadata:
                    return make_answer(200, metadata_to_json(core_.server_metadata()));
                case RestRouteKind::ModelMetadata:
                    return make_answer(200,
                                       metadata_to_json(core_.model_metadata(route.model, route.version)));
                case RestRouteKind::ModelReady:
                    return readiness(core_.model_ready(route.model, route.version), "ready");
                case RestRouteKind::Metrics:
                    return make_answer(200, core_.metrics_text(), "text/plain; version=0.0.4; charset=utf-8");
                case RestRouteKind::SharedMemoryStatus:
                    return make_answer(
                        200, shared_memory_status_to_json(core_.shared_memory().status(route.region)));
                case RestRouteKind::SharedMemoryRegister: {
                    // Refused before the body is read: a server without the extension says so first.
                    if (!core_.shared_memory().allowed()) throw shared_memory_off_error();
                    const SharedMemoryRegionStatus region =
                        register_request_from_rest(route.region, request.body());
                    core_.shared_memory().register_region(region.name, region.key, region.offset,
                                                          region.byte_size);
                    return make_answer(200, "{}");
                }
                case RestRouteKind::SharedMemoryUnregister:
                    core_.shared_memory().unregister(route.region);
                    return make_answer(200, "{}");
                case RestRouteKind::MethodNotAllowed: {
                    Answer answer = error_answer(ErrorKind::InvalidArgument,
                                                 std::string("this route answers ") +
                                                     rest_route_method(to_std(request.target())) + " only");
                    answer.status = 405;
                    answer.allow = rest_route_method(to_std(request.target()));
                    return answer;
                }
                case RestRouteKind::NotFound:
                case RestRouteKind::Infer:
                    break;
            }
            return error_answer(
                ErrorKind::NotFound,
                "no route " + std::string(to_std(request.target())) +
                    ": the routes are /v2/health/live, /v2/health/ready, /v2, /v2/models/{name}, "
                    "/v2/models/{name}/ready, /v2/models/{name}/infer (POST), /metrics, and with "
                    "--allow-client-shm /v2/systemsharedmemory[/region/{name}]/status, .../register (POST), "
                    ".../unregister (POST)");
        } catch (const ServeError& e) {
            return error_answer(e.kind(), e.what());
        } catch (const std::exception& e) {
            spdlog::error("REST request failed inside the server: {}", e.what());
            return error_answer(ErrorKind::Internal, e.what());
        }
    }

    /// One inference on a pool thread (blocks until the core's answer).
    Answer infer(const RestRoute& route, const Request& request) {
        try {
            RestInferRequest parsed = request_from_rest(
                route.model, route.version, request.body(),
                header_value(request, "Inference-Header-Content-Length"), &core_.shared_memory());
            // The request's pixels go to the detector as they are (response_to_rest reads only
            // parsed's output choices).
            RestBody body = response_to_rest(core_.infer(std::move(parsed.inference)), parsed);
            Answer answer = make_answer(200, std::move(body.bytes));
            if (body.json_length) {
                answer.content_type = "application/octet-stream";
                answer.json_length = body.json_length;
            }
            return answer;
        } catch (const ServeError& e) {
            return error_answer(e.kind(), e.what());
        } catch (const std::exception& e) {
            spdlog::error("REST inference failed inside the server: {}", e.what());
            return error_answer(ErrorKind::Internal, e.what());
        }
    }

    /// An inference thread for one request, or false when all are taken.
    bool take_infer_thread() {
        if (++infer_calls_ <= infer_threads_) return true;
        --infer_calls_;
        return false;
    }
    void give_back_infer_thread() { --infer_calls_; }
    Answer busy_answer() const {
        return error_answer(ErrorKind::ResourceExhausted,
                            "all " + std::to_string(infer_threads_) +
                                " inference threads of the REST front end are busy (--threads); retry later");
    }

    /// Requests between their read and their answer's write; drain waits for none to be left.
    void request_began() {
        const std::lock_guard<std::mutex> lock(mutex_);
        ++open_requests_;
    }
    void request_ended() {
        const std::lock_guard<std::mutex> lock(mutex_);
        --open_requests_;
        changed_.notify_all();
    }
    bool wait_for_open_requests(std::chrono::steady_clock::time_point deadline) {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_until(lock, deadline, [&] { return open_requests_ == 0; });
    }

    bool draining() const { return draining_; }
    void begin_draining() { draining_ = true; }
    std::size_t max_body_bytes() const { return options_.max_body_bytes; }
    asio::thread_pool& pool() { return pool_; }

    /// Open connections, so drain can close the idle ones; the value closes a connection from any thread.
    void add_connection(const void* key, std::function<void()> close) {
        const std::lock_guard<std::mutex> lock(mutex_);
        connections_.emplace(key, std::move(close));
    }
    void remove_connection(const void* key) {
        const std::lock_guard<std::mutex> lock(mutex_);
        connections_.erase(key);
    }
    std::size_t connection_count() {
        const std::lock_guard<std::mutex> lock(mutex_);
        return connections_.size();
    }
    void close_connections() {
        std::vector<std::function<void()>> closes;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            for (const auto& [key, close] : connections_) closes.push_back(close);
        }
        for (const auto& close : closes) close();
    }

private:
    static Answer readiness(bool state, const char* what) {
        // The status is the answer (200 true, 400 false, as the protocol says); the body repeats it.
        return make_answer(state ? 200 : 400,
                           std::string("{\"") + what + "\":" + (state ? "true" : "false") + "}");
    }

    InferenceCore& core_;
    const FrontEndOptions options_;
    const int infer_threads_;
    std::atomic<int> infer_calls_{0};
    std::atomic<bool> draining_{false};
    std::mutex mutex_;
    std::condition_variable changed_;
    int open_requests_ = 0;                                               // guarded by mutex_
    std::unordered_map<const void*, std::function<void()>> connections_;  // guarded by mutex_
    asio::thread_pool pool_;
};

beast::tcp_stream& lowest(beast::tcp_stream& stream) { return stream; }
beast::tcp_stream& lowest(beast::ssl_stream<beast::tcp_stream>& stream) {
    return beast::get_lowest_layer(stream);
}

/// One connection, plain or TLS: reads one request at a time and answers it (HTTP/1.1 keep-alive).
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
public:
    static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

    Session(Stream stream, Shared& shared) : stream_(std::move(stream)), shared_(shared) {}
    ~Session() { shared_.remove_connection(this); }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// Called on the acceptor's strand; everything after runs on the connection's own strand, so a
    /// close from drain never meets the first read half-started.
    void start() {
        asio::dispatch(stream_.get_executor(), [self = this->shared_from_this()] { self->begin(); });
    }

private:
    void begin() {
        std::weak_ptr<Session> weak = this->shared_from_this();
        shared_.add_connection(this, [weak] {
            if (const auto self = weak.lock())
                asio::dispatch(self->stream_.get_executor(), [self] { self->close(); });
        });
        if constexpr (kTls) {
            lowest(stream_).expires_after(kReadTimeout);
            stream_.async_handshake(asio::ssl::stream_base::server,
                                    [self = this->shared_from_this()](const beast::error_code& ec) {
                                        if (ec) return self->close();
                                        self->read_header();
                                    });
        } else {
            read_header();
        }
    }

    void read_header() {
        if (closed_) return;
        if (shared_.draining()) return close();
        parser_.emplace();
        parser_->header_limit(kHeaderLimit);
        parser_->body_limit(shared_.max_body_bytes());
        lowest(stream_).expires_after(kReadTimeout);
        bhttp::async_read_header(stream_, buffer_, *parser_,
                                 [self = this->shared_from_this()](const beast::error_code& ec, std::size_t) {
                                     self->on_header(ec);
                                 });
    }

    void on_header(const beast::error_code& ec) {
        if (closed_) return;
        if (ec) return on_read_error(ec);
        const auto& header = parser_->get();
        // curl and others wait for "100 Continue" before they send a large body.
        if (beast::iequals(header[bhttp::field::expect], "100-continue")) {
            auto interim = std::make_shared<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_, 11);
            bhttp::async_write(stream_, *interim,
                               [self = this->shared_from_this(), interim](
                                   const beast::error_code& write_error, std::size_t) {
                                   if (write_error) return self->close();
                                   self->read_body();
                               });
            return;
        }
        read_body();
    }

    void read_body() {
        bhttp::async_read(stream_, buffer_, *parser_,
                          [self = this->shared_from_this()](const beast::error_code& ec, std::size_t) {
                              self->on_request(ec);
                          });
    }

    void on_read_error(const beast::error_code& ec) {
        if (ec == bhttp::error::body_limit) {
            return respond(
                error_answer(ErrorKind::PayloadTooLarge, "the request body is above the server's limit of " +
                                                             std::to_string(shared_.max_body_bytes()) +
                                                             " bytes (--max-body-bytes)"),
                11, false, false);
        }
        if (fpgacnn::http::is_parse_error(ec))
            return respond(
                error_answer(ErrorKind::InvalidArgument, "malformed HTTP request: " + ec.message()), 11,
                false, false);
        close();  // the client left, timed out or sent nothing
    }

    void on_request(const beast::error_code& ec) {
        if (closed_) return;
        if (ec) return on_read_error(ec);
        request_ = parser_->release();
        shared_.request_began();
        const unsigned version = request_.version();
        const bool keep_alive = request_.keep_alive();
        if (shared_.draining()) {
            return respond(error_answer(ErrorKind::Unavailable, "the server is shutting down"), version,
                           false, true);
        }
        const RestRoute route = route_rest(to_std(request_.method_string()), to_std(request_.target()));
        if (route.kind != RestRouteKind::Infer)
            return respond(shared_.answer(route, request_), version, keep_alive, true);
        // Infer: the token first, then a pool thread, so neither an anonymous client nor a burst can
        // take the threads.
        if (auto refused = shared_.refuse_unauthenticated(route, request_))
            return respond(std::move(*refused), version, keep_alive, true);
        if (!shared_.take_infer_thread()) return respond(shared_.busy_answer(), version, keep_alive, true);
        asio::post(shared_.pool(), [self = this->shared_from_this(), route, version, keep_alive] {
            Answer answer = self->shared_.infer(route, self->request_);
            self->shared_.give_back_infer_thread();
            asio::dispatch(self->stream_.get_executor(),
                           [self, answer = std::move(answer), version, keep_alive]() mutable {
                               self->respond(std::move(answer), version, keep_alive, true);
                           });
        });
    }

    void respond(Answer answer, unsigned version, bool keep_alive, bool counted) {
        if (closed_) {
            if (counted) shared_.request_ended();
            return;
        }
        auto response = std::make_shared<Response>(static_cast<bhttp::status>(answer.status), version);
        response->set(bhttp::field::server, "fpgacnn-serve");
        response->set(bhttp::field::content_type, answer.content_type);
        if (answer.json_length)
            response->set("Inference-Header-Content-Length", std::to_string(*answer.json_length));
        if (answer.allow) response->set(bhttp::field::allow, answer.allow);
        response->body() = std::move(answer.body);
        const bool again = keep_alive && !shared_.draining();
        response->keep_alive(again);
        response->prepare_payload();
        lowest(stream_).expires_after(kWriteTimeout);
        bhttp::async_write(stream_, *response,
                           [self = this->shared_from_this(), response, again, counted](
                               const beast::error_code& ec, std::size_t) {
                               if (counted) self->shared_.request_ended();
                               self->request_ = {};
                               if (ec) return self->close();
                               if (!again) return self->linger_then_close();
                               self->read_header();
                           });
    }

    /// After the last answer: stops sending, then reads and drops what the client still sends (the rest
    /// of a body too large, say) for a while before closing, so the client sees the answer instead of a
    /// reset connection while it is still writing.
    void linger_then_close() {
        if (closed_) return;
        if constexpr (kTls) {
            close();
        } else {
            beast::error_code ignored;
            stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
            stream_.expires_after(kLinger);
            discard();
        }
    }

    void discard() {
        stream_.async_read_some(asio::buffer(scratch_),
                                [self = this->shared_from_this()](const beast::error_code& ec, std::size_t) {
                                    if (ec || self->closed_) return self->close();
                                    self->discard();
                                });
    }

    void close() {
        if (closed_) return;
        closed_ = true;
        beast::error_code ignored;
        lowest(stream_).socket().shutdown(tcp::socket::shutdown_both, ignored);
        lowest(stream_).close();
    }

    Stream stream_;
    Shared& shared_;
    beast::flat_buffer buffer_;
    std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
    Request request_;
    std::array<char, 16 * 1024> scratch_{};
    bool closed_ = false;
};

std::unique_ptr<asio::ssl::context> tls_context(const FrontEndOptions& options) {
    if (options.tls_cert_file.empty() && options.tls_key_file.empty()) return nullptr;
    if (options.tls_cert_file.empty() || options.tls_key_file.empty())
        throw Error("REST TLS needs both a certificate and a key file (one of them is missing)");
    auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
    context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                         asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                         asio::ssl::context::no_tlsv1_1);
    for (const auto& [file, what] :
         {std::pair{options.tls_cert_file, "certificate"}, {options.tls_key_file, "key"}}) {
        if (!std::ifstream(file))
            throw Error("REST TLS " + std::string(what) + " file '" + file + "' cannot be read");
    }
    beast::error_code ec;
    context->use_certificate_chain_file(options.tls_cert_file, ec);
    if (ec)
        throw Error("REST TLS certificate file '" + options.tls_cert_file +
                    "' cannot be used: " + ec.message());
    context->use_private_key_file(options.tls_key_file, asio::ssl::context::pem, ec);
    if (ec) throw Error("REST TLS key file '" + options.tls_key_file + "' cannot be used: " + ec.message());
    return context;
}

class RestFrontEnd final : public FrontEnd {
public:
    RestFrontEnd(InferenceCore& core, const FrontEndOptions& options)
        : shared_(core, options),
          tls_(tls_context(options)),
          acceptor_(asio::make_strand(io_)),
          work_(io_.get_executor()) {
        fpgacnn::http::listen_on(acceptor_, options.bind, options.port, "--http-port");
        port_ = acceptor_.local_endpoint().port();
        accept();
        for (int i = 0; i < kIoThreads; ++i)
            io_threads_.emplace_back([this] {
                io_.run();
                const std::lock_guard<std::mutex> lock(io_mutex_);
                ++io_threads_done_;
                io_done_.notify_all();
            });
        spdlog::info("REST: /v2 routes and /metrics on {}{}", fpgacnn::http::host_port(options.bind, port_),
                     tls_ ? " (TLS)" : "");
    }

    ~RestFrontEnd() override { drain(std::chrono::steady_clock::now()); }
    RestFrontEnd(const RestFrontEnd&) = delete;
    RestFrontEnd& operator=(const RestFrontEnd&) = delete;

    unsigned short port() const override { return port_; }

    void drain(std::chrono::steady_clock::time_point deadline) override {
        {
            const std::lock_guard<std::mutex> lock(drain_mutex_);
            if (drained_) return;
            drained_ = true;
        }
        shared_.begin_draining();
        asio::dispatch(acceptor_.get_executor(), [this] {
            beast::error_code ignored;
            acceptor_.close(ignored);
            retry_timer_.cancel();
        });
        if (!shared_.wait_for_open_requests(deadline))
            spdlog::warn("REST: requests still in flight at the drain deadline; closing their connections");
        shared_.close_connections();
        work_.reset();
        {
            std::unique_lock<std::mutex> lock(io_mutex_);
            if (!io_done_.wait_for(lock, kIoStopGrace, [&] { return io_threads_done_ == kIoThreads; }))
                io_.stop();
        }
        for (std::thread& thread : io_threads_) thread.join();
        shared_.pool().join();
    }

private:
    void accept() {
        acceptor_.async_accept(asio::make_strand(io_), [this](const beast::error_code& ec,
                                                              tcp::socket socket) {
            if (!acceptor_.is_open()) return;
            if (ec) {
                // Out of file descriptors and the like: keep serving the connections there are and try
                // again shortly (at once would spin on the same error).
                spdlog::warn("REST: accept failed: {}; retrying in 1 s", ec.message());
                retry_timer_.expires_after(std::chrono::seconds(1));
                retry_timer_.async_wait([this](const beast::error_code& wait_error) {
                    if (!wait_error && acceptor_.is_open()) accept();
                });
                return;
            }
            if (shared_.connection_count() >= kMaxConnections) {
                spdlog::warn("REST: {} connections open; refusing one more", kMaxConnections);
            } else if (tls_) {
                std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
                    beast::ssl_stream<beast::tcp_stream>(beast::tcp_stream(std::move(socket)), *tls_),
                    shared_)
                    ->start();
            } else {
                std::make_shared<Session<beast::tcp_stream>>(beast::tcp_stream(std::move(socket)), shared_)
                    ->start();
            }
            accept();
        });
    }

    // Sessions hold a reference to shared_ and end with the I/O context: it is declared after them.
    Shared shared_;
    std::unique_ptr<asio::ssl::context> tls_;
    asio::io_context io_;
    tcp::acceptor acceptor_;
    asio::steady_timer retry_timer_{acceptor_.get_executor()};
    asio::executor_work_guard<asio::io_context::executor_type> work_;
    std::vector<std::thread> io_threads_;
    std::mutex io_mutex_;
    std::condition_variable io_done_;
    int io_threads_done_ = 0;  // guarded by io_mutex_
    unsigned short port_ = 0;
    std::mutex drain_mutex_;
    bool drained_ = false;
};

}  // namespace

std::unique_ptr<FrontEnd> start_rest_front_end(InferenceCore& core, const FrontEndOptions& options) {
    return std::make_unique<RestFrontEnd>(core, options);
}

}  // namespace fpgacnn::serve

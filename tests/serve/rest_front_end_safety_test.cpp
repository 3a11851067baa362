// The REST front end's safety and lifecycle: the bearer token, TLS, a port it cannot bind, bytes that
// are not HTTP, its inference threads and a full admission queue (503 at once), and drain letting a
// request in progress finish while refusing new ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/write.hpp>
#include <future>
#include <random>
#include <thread>

#include "fpgacnn/error.hpp"
#include "rest_test_support.hpp"
#include "test_certificate.hpp"

namespace fpgacnn::serve {
namespace {

using ::testing::HasSubstr;
using namespace test_support;

std::unique_ptr<RepositoryCore> yolo_lite_core(int max_queue = 64) {
    PoolOptions options;
    options.max_queue = max_queue;
    return std::make_unique<RepositoryCore>(yolo_lite_repository("rest_safety"), options);
}

std::string start_error(InferenceCore& core, const FrontEndOptions& options) {
    try {
        start_rest_front_end(core, options);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "the front end started on " << options.bind << ":" << options.port;
    return "";
}

RestRequestBody dog_request(const std::string& id) {
    return infer_body(test::darknet_file("data/dog.jpg"), id, InputForm::EncodedBinary);
}

HttpAnswer infer_dog(unsigned short port, const std::string& id) {
    const RestRequestBody request = dog_request(id);
    return http_call(port, "POST", "/v2/models/yolo-lite/infer", request.body, request.headers);
}

TEST(RestFrontEndSafety, WithATokenOnlyTheHealthProbesAnswerWithoutIt) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto core = yolo_lite_core();
    FrontEndOptions options;
    options.auth_token = "s3cret-token";
    const auto front_end = start_rest_front_end(*core, options);
    const unsigned short port = front_end->port();
    EXPECT_EQ(http_call(port, "GET", "/v2/health/live").status, 200);
    EXPECT_EQ(http_call(port, "GET", "/v2/health/ready").status, 200);
    for (const char* target : {"/v2", "/v2/models/yolo-lite", "/v2/models/yolo-lite/ready", "/metrics"}) {
        const HttpAnswer refused = http_call(port, "GET", target);
        EXPECT_EQ(refused.status, 401) << target;
        EXPECT_THAT(refused.body, HasSubstr("missing 'authorization: Bearer <token>' header")) << target;
        EXPECT_EQ(http_call(port, "GET", target, "", {{"Authorization", "Bearer wrong-token!"}}).status, 401);
        EXPECT_EQ(http_call(port, "GET", target, "", {{"Authorization", "Bearer s3cret-token"}}).status, 200);
    }
    EXPECT_EQ(infer_dog(port, "anonymous").status, 401);
    RestRequestBody request = dog_request("known");
    request.headers.emplace_back("Authorization", "Bearer s3cret-token");
    EXPECT_EQ(http_call(port, "POST", "/v2/models/yolo-lite/infer", request.body, request.headers).status,
              200);
}

TEST(RestFrontEndSafety, ServesOverTls) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const TestCertificate certificate = make_test_certificate("rest_tls");
    if (!certificate.error.empty())
        GTEST_SKIP() << "openssl cannot make a test certificate: " << certificate.error;
    const std::string& cert = certificate.cert;
    const std::string& key = certificate.key;
    const auto core = yolo_lite_core();
    FrontEndOptions options;
    options.tls_cert_file = cert;
    options.tls_key_file = key;
    const auto front_end = start_rest_front_end(*core, options);
    const HttpAnswer live = http_call(front_end->port(), "GET", "/v2/health/live", "", {}, true);
    EXPECT_EQ(live.status, 200) << live.error;
    const RestRequestBody request = dog_request("tls");
    EXPECT_EQ(http_call(front_end->port(), "POST", "/v2/models/yolo-lite/infer", request.body,
                        request.headers, true)
                  .status,
              200);
    // A plain-text client gets no answer.
    EXPECT_EQ(http_call(front_end->port(), "GET", "/v2/health/live", "", {}, false, std::chrono::seconds(10))
                  .status,
              0);

    options.tls_key_file.clear();
    EXPECT_THAT(start_error(*core, options), HasSubstr("needs both a certificate and a key file"));
    options.tls_key_file = cert + ".missing.pem";
    EXPECT_THAT(start_error(*core, options), HasSubstr("missing.pem"));
}

TEST(RestFrontEndSafety, APortInUseOrAForeignAddressIsAnErrorNamingIt) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto core = yolo_lite_core();
    const auto first = start_rest_front_end(*core, FrontEndOptions{});
    FrontEndOptions same_port;
    same_port.port = first->port();
    const std::string in_use = start_error(*core, same_port);
    EXPECT_THAT(in_use, HasSubstr("cannot listen on 127.0.0.1:" + std::to_string(first->port())));
    EXPECT_THAT(in_use, HasSubstr("--http-port 0"));
    FrontEndOptions foreign;
    foreign.bind = "192.0.2.7";  // TEST-NET-1: never an address of this host
    EXPECT_THAT(start_error(*core, foreign), HasSubstr("cannot listen on 192.0.2.7:0"));
    foreign.bind = "not-an-address";
    EXPECT_THAT(start_error(*core, foreign), HasSubstr("not an IP address"));
}

TEST(RestFrontEndSafety, BytesThatAreNotHttpGetA400AndTheServerGoesOn) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto core = yolo_lite_core();
    const auto front_end = start_rest_front_end(*core, FrontEndOptions{});
    std::mt19937 random(7);
    int answered_400 = 0;
    for (int i = 0; i < 20; ++i) {
        std::string garbage(64 + i * 37, '\0');
        for (char& c : garbage) c = static_cast<char>(random() & 0xFF);
        if (i % 2 == 0) garbage = "GET /v2 HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n" + garbage;
        boost::asio::io_context io;
        boost::beast::tcp_stream stream(io);
        stream.expires_after(std::chrono::seconds(30));
        stream.connect({boost::asio::ip::make_address("127.0.0.1"), front_end->port()});
        // The server may answer and close before all of it is written: errors here are expected.
        boost::beast::error_code ec;
        boost::asio::write(stream, boost::asio::buffer(garbage), ec);
        stream.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ec);
        ec = {};
        std::string reply;
        std::array<char, 4096> chunk{};
        for (std::size_t n; (n = stream.read_some(boost::asio::buffer(chunk), ec)) > 0 || !ec;)
            reply.append(chunk.data(), n);
        if (reply.rfind("HTTP/1.1 400", 0) == 0) ++answered_400;
        EXPECT_TRUE(reply.empty() || reply.rfind("HTTP/1.1 400", 0) == 0) << reply.substr(0, 80);
    }
    EXPECT_GT(answered_400, 0);
    EXPECT_EQ(http_call(front_end->port(), "GET", "/v2/health/live").status, 200);
}

TEST(RestFrontEndSafety, BeyondItsThreadsInferIsRefusedAndTheProbesStillAnswer) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto repository = yolo_lite_core();
    RecordingCore core(*repository);
    FrontEndOptions options;
    options.threads = 2;
    const auto front_end = start_rest_front_end(core, options);
    const unsigned short port = front_end->port();
    core.hold();
    std::vector<std::future<HttpAnswer>> held;
    for (int i = 1; i <= 2; ++i) {
        held.push_back(
            std::async(std::launch::async, [port, i] { return infer_dog(port, std::to_string(i)); }));
        core.wait_for_calls(i);
    }
    const HttpAnswer third = infer_dog(port, "3");
    EXPECT_EQ(third.status, 503);
    EXPECT_THAT(third.body, HasSubstr("all 2 inference threads"));
    EXPECT_EQ(http_call(port, "GET", "/v2/health/live").status, 200);
    EXPECT_EQ(http_call(port, "GET", "/v2/models/yolo-lite").status, 200);
    core.release();
    for (auto& call : held) EXPECT_EQ(call.get().status, 200);
}

TEST(RestFrontEndSafety, AFullAdmissionQueueIs503AtOnce) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto core = yolo_lite_core(1);
    const auto front_end = start_rest_front_end(*core, FrontEndOptions{});
    constexpr int kCalls = 4;
    int rejected = 0;
    int answered = 0;
    for (int round = 0; round < 50 && rejected == 0; ++round) {
        std::vector<std::future<HttpAnswer>> calls;
        for (int i = 0; i < kCalls; ++i)
            calls.push_back(std::async(std::launch::async,
                                       [&, i] { return infer_dog(front_end->port(), std::to_string(i)); }));
        for (auto& call : calls) {
            const HttpAnswer answer = call.get();
            if (answer.status == 200) {
                ++answered;
            } else {
                EXPECT_EQ(answer.status, 503) << answer.body;
                EXPECT_THAT(answer.body, HasSubstr("--max-queue"));
                ++rejected;
            }
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_GT(answered, 0);
}

TEST(RestFrontEndSafety, DrainFinishesTheRequestInProgressAndRefusesNewOnes) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto repository = yolo_lite_core();
    RecordingCore core(*repository);
    const auto front_end = start_rest_front_end(core, FrontEndOptions{});
    const unsigned short port = front_end->port();
    core.hold();
    auto in_flight = std::async(std::launch::async, [port] { return infer_dog(port, "in flight"); });
    core.wait_for_calls(1);
    std::atomic<bool> drained{false};
    std::thread drain([&] {
        front_end->drain(std::chrono::steady_clock::now() + std::chrono::seconds(120));
        drained = true;
    });
    bool refused = false;
    for (int i = 0; i < 500 && !refused; ++i) {
        refused =
            http_call(port, "GET", "/v2/health/live", "", {}, false, std::chrono::seconds(5)).status == 0;
        if (!refused) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(refused);
    EXPECT_FALSE(drained) << "drain returned with a request still in progress";
    core.release();
    const HttpAnswer answer = in_flight.get();
    drain.join();
    ASSERT_EQ(answer.status, 200) << answer.error;
    std::string id;
    EXPECT_FALSE(detections_of(answer, &id).scores.empty());
    EXPECT_EQ(id, "in flight");
}

}  // namespace
}  // namespace fpgacnn::serve

// The gRPC front end's safety and lifecycle: the bearer token, TLS, a port it cannot bind, the message
// size limit, a full admission queue, and drain letting a call in progress finish while refusing
// new ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "fpgacnn/error.hpp"
#include "grpc_test_support.hpp"
#include "test_certificate.hpp"

namespace fpgacnn::serve {
namespace {

using ::testing::HasSubstr;
using namespace test_support;

std::unique_ptr<RepositoryCore> yolo_lite_core(int max_queue = 64) {
    PoolOptions options;
    options.max_queue = max_queue;
    return std::make_unique<RepositoryCore>(yolo_lite_repository("grpc_safety"), options);
}

grpc::StatusCode model_metadata_code(inference::GRPCInferenceService::Stub& stub,
                                     const std::string& authorization) {
    auto context = context_with_deadline();
    if (!authorization.empty()) context->AddMetadata("authorization", authorization);
    inference::ModelMetadataRequest request;
    request.set_name("yolo-lite");
    inference::ModelMetadataResponse response;
    return stub.ModelMetadata(context.get(), request, &response).error_code();
}

/// The message of the Error that starting a front end with `options` must throw ("" if it starts).
std::string start_error(InferenceCore& core, const FrontEndOptions& options) {
    try {
        start_grpc_front_end(core, options);
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "the front end started on " << options.bind << ":" << options.port;
    return "";
}

TEST(GrpcFrontEndSafety, WithATokenOnlyTheHealthProbesAnswerWithoutIt) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto core = yolo_lite_core();
    FrontEndOptions options;
    options.auth_token = "s3cret-token";
    const auto front_end = start_grpc_front_end(*core, options);
    const auto stub = stub_for(front_end->port());

    inference::ServerLiveResponse live;
    EXPECT_TRUE(stub->ServerLive(context_with_deadline().get(), {}, &live).ok());
    inference::ServerReadyResponse ready;
    EXPECT_TRUE(stub->ServerReady(context_with_deadline().get(), {}, &ready).ok());

    EXPECT_EQ(model_metadata_code(*stub, ""), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(model_metadata_code(*stub, "Bearer wrong-token!"), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(model_metadata_code(*stub, "s3cret-token"), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(model_metadata_code(*stub, "Bearer s3cret-token"), grpc::StatusCode::OK);

    inference::ModelInferResponse response;
    grpc::Status status = stub->ModelInfer(
        context_with_deadline().get(), encoded_request(test::darknet_file("data/dog.jpg"), "a"), &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_THAT(status.error_message(), HasSubstr("authorization: Bearer"));
    auto context = context_with_deadline();
    context->AddMetadata("authorization", "Bearer s3cret-token");
    status =
        stub->ModelInfer(context.get(), encoded_request(test::darknet_file("data/dog.jpg"), "b"), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_FALSE(detections_of(response).scores.empty());
}

TEST(GrpcFrontEndSafety, ServesOverTls) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const TestCertificate certificate = make_test_certificate("grpc_tls");
    if (!certificate.error.empty())
        GTEST_SKIP() << "openssl cannot make a test certificate: " << certificate.error;
    const std::string& cert = certificate.cert;
    const std::string& key = certificate.key;
    const auto core = yolo_lite_core();
    FrontEndOptions options;
    options.tls_cert_file = cert;
    options.tls_key_file = key;
    const auto front_end = start_grpc_front_end(*core, options);

    grpc::SslCredentialsOptions trust;
    trust.pem_root_certs = file_text(cert);
    const auto stub = stub_for(front_end->port(), grpc::SslCredentials(trust));
    inference::ServerLiveResponse live;
    const grpc::Status status = stub->ServerLive(context_with_deadline().get(), {}, &live);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_TRUE(live.live());

    // A plain-text client cannot talk to it.
    const auto plain = stub_for(front_end->port());
    EXPECT_FALSE(plain->ServerLive(context_with_deadline(std::chrono::seconds(10)).get(), {}, &live).ok());

    options.tls_key_file.clear();
    EXPECT_THAT(start_error(*core, options), HasSubstr("needs both a certificate and a key file"));
    options.tls_key_file = cert + ".missing.pem";
    EXPECT_THAT(start_error(*core, options), HasSubstr("missing.pem"));
}

TEST(GrpcFrontEndSafety, APortInUseOrAForeignAddressIsAnErrorNamingIt) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto core = yolo_lite_core();
    const auto first = start_grpc_front_end(*core, FrontEndOptions{});
    FrontEndOptions same_port;
    same_port.port = first->port();
    EXPECT_THAT(start_error(*core, same_port),
                HasSubstr("cannot listen on 127.0.0.1:" + std::to_string(first->port())));
    FrontEndOptions foreign;
    foreign.bind = "192.0.2.7";  // TEST-NET-1: never an address of this host
    EXPECT_THAT(start_error(*core, foreign), HasSubstr("cannot listen on 192.0.2.7:0"));
}

TEST(GrpcFrontEndSafety, AMessageAboveTheLimitIsRefusedAndTheServerGoesOn) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto core = yolo_lite_core();
    FrontEndOptions options;
    options.max_body_bytes = 4096;
    const auto front_end = start_grpc_front_end(*core, options);
    const auto stub = stub_for(front_end->port());
    inference::ModelInferResponse response;
    const grpc::Status status = stub->ModelInfer(
        context_with_deadline().get(), encoded_request(test::darknet_file("data/dog.jpg"), "big"), &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
    inference::ServerLiveResponse live;
    EXPECT_TRUE(stub->ServerLive(context_with_deadline().get(), {}, &live).ok());
}

TEST(GrpcFrontEndSafety, AFullAdmissionQueueIsResourceExhausted) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    // One request admitted at a time; rounds of concurrent calls until one finds the queue full
    // (the first round nearly always does: a frame takes milliseconds, the calls arrive together).
    const auto core = yolo_lite_core(1);
    const auto front_end = start_grpc_front_end(*core, FrontEndOptions{});
    const auto stub = stub_for(front_end->port());
    const inference::ModelInferRequest request = encoded_request(test::darknet_file("data/dog.jpg"), "q");
    constexpr int kCalls = 4;
    int rejected = 0;
    int answered = 0;
    for (int round = 0; round < 50 && rejected == 0; ++round) {
        std::vector<grpc::Status> statuses(kCalls);
        std::vector<std::thread> calls;
        for (int i = 0; i < kCalls; ++i)
            calls.emplace_back([&, i] {
                inference::ModelInferResponse response;
                statuses[i] = stub->ModelInfer(context_with_deadline().get(), request, &response);
            });
        for (std::thread& call : calls) call.join();
        for (const grpc::Status& status : statuses) {
            if (status.ok()) {
                ++answered;
            } else {
                EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
                    << status.error_message();
                EXPECT_THAT(status.error_message(), HasSubstr("--max-queue"));
                ++rejected;
            }
        }
    }
    EXPECT_GT(rejected, 0);
    EXPECT_GT(answered, 0);
}

TEST(GrpcFrontEndSafety, BeyondItsThreadsInferIsRefusedAndTheProbesStillAnswer) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto repository = yolo_lite_core();
    RecordingCore core(*repository);
    FrontEndOptions options;
    options.threads = 2;
    const auto front_end = start_grpc_front_end(core, options);
    const auto stub = stub_for(front_end->port());
    core.hold();
    const auto start_call = [&](int i) {
        return std::async(std::launch::async, [&, i] {
            inference::ModelInferResponse response;
            return stub->ModelInfer(context_with_deadline().get(),
                                    encoded_request(test::darknet_file("data/dog.jpg"), std::to_string(i)),
                                    &response);
        });
    };
    // Two calls reach the core (and wait there); the third finds both threads taken.
    std::vector<std::future<grpc::Status>> held;
    for (int i = 1; i <= 2; ++i) {
        held.push_back(start_call(i));
        core.wait_for_calls(i);
    }
    const grpc::Status third = start_call(3).get();
    EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_THAT(third.error_message(), HasSubstr("all 2 inference threads"));
    inference::ServerLiveResponse live;
    EXPECT_TRUE(stub->ServerLive(context_with_deadline().get(), {}, &live).ok());
    EXPECT_EQ(model_metadata_code(*stub, ""), grpc::StatusCode::OK);
    core.release();
    for (auto& call : held) EXPECT_TRUE(call.get().ok());
}

TEST(GrpcFrontEndSafety, DrainFinishesTheCallInProgressAndRefusesNewOnes) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    const auto repository = yolo_lite_core();
    RecordingCore core(*repository);
    const auto front_end = start_grpc_front_end(core, FrontEndOptions{});
    const auto stub = stub_for(front_end->port());
    core.hold();
    inference::ModelInferResponse response;
    grpc::Status status;
    std::thread call([&] {
        status =
            stub->ModelInfer(context_with_deadline().get(),
                             encoded_request(test::darknet_file("data/dog.jpg"), "in flight"), &response);
    });
    core.wait_for_calls(1);
    std::atomic<bool> drained{false};
    std::thread drain([&] {
        front_end->drain(std::chrono::steady_clock::now() + std::chrono::seconds(120));
        drained = true;
    });
    // New calls are refused once draining has begun (on a fresh channel: a new client).
    const auto newcomer = stub_for(front_end->port());
    bool refused = false;
    for (int i = 0; i < 500 && !refused; ++i) {
        inference::ServerLiveResponse live;
        refused = !newcomer->ServerLive(context_with_deadline(std::chrono::seconds(5)).get(), {}, &live).ok();
        if (!refused) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(refused);
    EXPECT_FALSE(drained) << "drain returned with a call still in progress";
    core.release();
    call.join();
    drain.join();
    EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
    EXPECT_EQ(response.id(), "in flight");
    EXPECT_FALSE(detections_of(response).scores.empty());
}

}  // namespace
}  // namespace fpgacnn::serve

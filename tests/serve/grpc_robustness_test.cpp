// Nothing a client sends may crash the gRPC front end: requests mutated at random (shapes, datatypes,
// contents, parameters) fail only with ServeError(InvalidArgument) on their way to the core, and random
// bytes sent as the methods' messages are answered with an error while the server goes on.
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <future>
#include <random>

#include "grpc_messages.hpp"
#include "grpc_test_support.hpp"
#include "image_input.hpp"

namespace fpgacnn::serve {
namespace {

using namespace test_support;

/// One random change to a valid request: what a buggy or hostile client might send.
void mutate(inference::ModelInferRequest& request, std::mt19937& random) {
    const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
    const std::int64_t odd_numbers[] = {-1, 0, 1, 2, 3, 4, 8192, 8193, INT32_MAX, INT64_MAX, INT64_MIN};
    auto* input = request.inputs_size() > 0 ? request.mutable_inputs(0) : request.add_inputs();
    switch (pick(9)) {
        case 0:
            if (input->shape_size() > 0) input->set_shape(pick(input->shape_size()), odd_numbers[pick(11)]);
            break;
        case 1:
            input->add_shape(odd_numbers[pick(11)]);
            break;
        case 2: {
            const char* datatypes[] = {"BYTES", "UINT8", "FP32", "", "uint8", "INT64"};
            input->set_datatype(datatypes[pick(6)]);
            break;
        }
        case 3:
            if (request.raw_input_contents_size() > 0) {
                std::string& raw = *request.mutable_raw_input_contents(0);
                raw.resize(static_cast<std::size_t>(random() % (raw.size() + 16)));
                if (!raw.empty()) raw[random() % raw.size()] = static_cast<char>(random());
            }
            break;
        case 4:
            input->mutable_contents()->add_uint_contents(static_cast<std::uint32_t>(random()));
            break;
        case 5:
            input->mutable_contents()->add_bytes_contents(std::string(pick(64), static_cast<char>(random())));
            break;
        case 6:
            (*request.mutable_parameters())[pick(2) ? "thresh" : "nms"].set_double_param(
                std::uniform_real_distribution<double>(-2, 2)(random));
            break;
        case 7:
            request.add_raw_input_contents(std::string(pick(8), 'z'));
            break;
        default:
            request.add_outputs()->set_name(pick(2) ? "boxes" : "");
            break;
    }
}

TEST(GrpcRobustness, MutatedRequestsFailOnlyWithInvalidArgument) {
    std::mt19937 random(14);
    const inference::ModelInferRequest seeds[] = {
        encoded_request(test::darknet_file("data/dog.jpg"), "e"),
        as_typed_contents(encoded_request(test::darknet_file("data/eagle.jpg"), "t")),
    };
    int accepted = 0;
    int refused = 0;
    for (int i = 0; i < 400; ++i) {
        inference::ModelInferRequest request = seeds[i % 2];
        for (int changes = 1 + static_cast<int>(random() % 3); changes > 0; --changes)
            mutate(request, random);
        try {
            InferenceRequest converted = request_from_grpc(request);
            // What the model pool does first with it: the image as the detector takes it.
            detector_input(std::move(converted.image), converted.id);
            ++accepted;
        } catch (const ServeError& e) {
            EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
            ++refused;
        }
    }
    EXPECT_GT(refused, 0);
    EXPECT_GT(accepted, 0);
}

TEST(GrpcRobustness, RandomBytesOnTheWireAreAnsweredAndTheServerGoesOn) {
    FPGACNN_REQUIRE_SHARED_MODELS();
    RepositoryCore core(yolo_lite_repository("grpc_robustness"), PoolOptions{});
    const auto front_end = start_grpc_front_end(core, FrontEndOptions{});
    const auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(front_end->port()),
                                             grpc::InsecureChannelCredentials());
    grpc::GenericStub generic(channel);
    std::mt19937 random(7);
    const char* methods[] = {
        "/inference.GRPCInferenceService/ModelInfer", "/inference.GRPCInferenceService/ModelMetadata",
        "/inference.GRPCInferenceService/ModelReady", "/inference.GRPCInferenceService/Nope"};
    for (int i = 0; i < 200; ++i) {
        std::string bytes(random() % 300, '\0');
        for (char& byte : bytes) byte = static_cast<char>(random());
        grpc::Slice slice(bytes);
        const grpc::ByteBuffer request(&slice, 1);
        grpc::ByteBuffer response;
        const auto context = context_with_deadline(std::chrono::seconds(30));
        std::promise<grpc::Status> done;
        generic.UnaryCall(context.get(), methods[i % 4], grpc::StubOptions(), &request, &response,
                          [&](grpc::Status status) { done.set_value(std::move(status)); });
        const grpc::Status status = done.get_future().get();
        EXPECT_NE(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED)
            << "call " << i << " got no answer";
    }
    const auto stub = stub_for(front_end->port());
    inference::ServerLiveResponse live;
    ASSERT_TRUE(stub->ServerLive(context_with_deadline().get(), {}, &live).ok());
    inference::ModelInferResponse response;
    ASSERT_TRUE(stub->ModelInfer(context_with_deadline().get(),
                                 encoded_request(test::darknet_file("data/dog.jpg"), "ok"), &response)
                    .ok());
    EXPECT_FALSE(detections_of(response).scores.empty());
}

}  // namespace
}  // namespace fpgacnn::serve

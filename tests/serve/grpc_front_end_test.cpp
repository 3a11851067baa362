// The gRPC front end in-process on 127.0.0.1 over a RepositoryCore with YOLO-LITE, called through the
// stub generated from grpc_service.proto as any client would: every RPC, both input forms and both
// content encodings giving the InferenceCore's own detections, parameters and requested outputs
// reaching the core, each failure with its status code and reason, and the system shared-memory
// extension (refused unless the core allows it; inputs read from a registered region).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "fpgacnn/version.hpp"
#include "grpc_test_support.hpp"
#include "shm_test_support.hpp"

namespace fpgacnn::serve {
namespace {

using ::testing::HasSubstr;
using namespace test_support;

class GrpcFrontEnd : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (test::shared_dir().empty()) return;
        repository_core = new RepositoryCore(yolo_lite_repository("grpc_front_end"), PoolOptions{});
    }
    static void TearDownTestSuite() {
        delete repository_core;
        repository_core = nullptr;
    }

    void SetUp() override {
        FPGACNN_REQUIRE_SHARED_MODELS();
        core = std::make_unique<RecordingCore>(*repository_core);
        FrontEndOptions options;
        options.bind = "127.0.0.1";
        front_end = start_grpc_front_end(*core, options);
        ASSERT_NE(front_end->port(), 0);
        stub = stub_for(front_end->port());
    }

    /// ModelInfer; the status, and the response in `response`.
    grpc::Status infer(const inference::ModelInferRequest& request, inference::ModelInferResponse& response) {
        return stub->ModelInfer(context_with_deadline().get(), request, &response);
    }

    /// The detections of a call that must succeed.
    Detections detections(const inference::ModelInferRequest& request) {
        inference::ModelInferResponse response;
        const grpc::Status status = infer(request, response);
        EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
        EXPECT_EQ(response.id(), request.id());
        EXPECT_EQ(response.model_name(), "yolo-lite");
        return detections_of(response);
    }

    static RepositoryCore* repository_core;
    std::unique_ptr<RecordingCore> core;
    std::unique_ptr<FrontEnd> front_end;
    std::unique_ptr<inference::GRPCInferenceService::Stub> stub;
};

RepositoryCore* GrpcFrontEnd::repository_core = nullptr;

TEST_F(GrpcFrontEnd, EveryRpcAnswers) {
    inference::ServerLiveResponse live;
    ASSERT_TRUE(stub->ServerLive(context_with_deadline().get(), {}, &live).ok());
    EXPECT_TRUE(live.live());
    inference::ServerReadyResponse ready;
    ASSERT_TRUE(stub->ServerReady(context_with_deadline().get(), {}, &ready).ok());
    EXPECT_TRUE(ready.ready());

    inference::ModelReadyRequest model_ready;
    model_ready.set_name("yolo-lite");
    inference::ModelReadyResponse model_ready_answer;
    ASSERT_TRUE(stub->ModelReady(context_with_deadline().get(), model_ready, &model_ready_answer).ok());
    EXPECT_TRUE(model_ready_answer.ready());

    inference::ServerMetadataResponse server;
    ASSERT_TRUE(stub->ServerMetadata(context_with_deadline().get(), {}, &server).ok());
    EXPECT_EQ(server.name(), "fpgacnn");
    EXPECT_EQ(server.version(), fpgacnn::version());  // the library's version, as every tool's --version

    inference::ModelMetadataRequest metadata_request;
    metadata_request.set_name("yolo-lite");
    metadata_request.set_version("1");
    inference::ModelMetadataResponse metadata;
    ASSERT_TRUE(stub->ModelMetadata(context_with_deadline().get(), metadata_request, &metadata).ok());
    EXPECT_EQ(metadata.name(), "yolo-lite");
    EXPECT_EQ(metadata.platform(), "fpgacnn_darknet");
    ASSERT_EQ(metadata.inputs_size(), 1);
    EXPECT_EQ(metadata.inputs(0).name(), "image");
    EXPECT_EQ(metadata.inputs(0).datatype(), "BYTES");
    ASSERT_EQ(metadata.outputs_size(), 4);
    EXPECT_EQ(metadata.outputs(0).name(), "boxes");
    EXPECT_EQ(metadata.outputs(3).datatype(), "BYTES");

    const Detections dog = detections(encoded_request(test::darknet_file("data/dog.jpg"), "dog"));
    EXPECT_FALSE(dog.scores.empty());
}

TEST_F(GrpcFrontEnd, BothInputFormsAndBothEncodingsGiveTheCoresDetections) {
    for (const char* file : {"data/dog.jpg", "data/person.jpg"}) {
        const std::string path = test::darknet_file(file);
        InferenceRequest direct;
        direct.model = "yolo-lite";
        direct.id = file;
        direct.image.form = ImageInput::Form::Encoded;
        direct.image.hold(file_text(path));
        const Detections expected = detections_of(repository_core->infer(direct));
        ASSERT_FALSE(expected.scores.empty()) << file;

        EXPECT_TRUE(detections(encoded_request(path, "raw bytes")) == expected) << file;
        EXPECT_TRUE(detections(as_typed_contents(encoded_request(path, "typed bytes"))) == expected) << file;
        EXPECT_TRUE(detections(pixel_request(path, "raw pixels")) == expected) << file;
        EXPECT_TRUE(detections(as_typed_contents(pixel_request(path, "typed pixels"))) == expected) << file;
    }
}

TEST_F(GrpcFrontEnd, ParametersOutputsAndTheDeadlineReachTheCore) {
    const std::string path = test::darknet_file("data/person.jpg");
    inference::ModelInferRequest request = encoded_request(path, "params");
    (*request.mutable_parameters())["thresh"].set_double_param(0.1);
    (*request.mutable_parameters())["nms"].set_double_param(0.3);
    request.add_outputs()->set_name("labels");
    request.add_outputs()->set_name("scores");
    grpc::ClientContext context;
    const auto before = std::chrono::steady_clock::now();
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(100));
    inference::ModelInferResponse response;
    const grpc::Status status = stub->ModelInfer(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();

    const InferenceRequest seen = core->last_request();
    EXPECT_EQ(seen.thresh, 0.1f);
    EXPECT_EQ(seen.nms, 0.3f);
    EXPECT_EQ(seen.requested_outputs, (std::vector<std::string>{"labels", "scores"}));
    ASSERT_TRUE(seen.deadline.has_value());
    // gRPC sends the deadline as a timeout, coarsened (rounded up) to fit its 8 digits: about 100 s.
    EXPECT_GT(*seen.deadline, before + std::chrono::seconds(90));
    EXPECT_LT(*seen.deadline, std::chrono::steady_clock::now() + std::chrono::seconds(105));

    ASSERT_EQ(response.outputs_size(), 2);
    EXPECT_EQ(response.outputs(0).name(), "labels");
    EXPECT_EQ(response.outputs(1).name(), "scores");
    InferenceRequest direct = seen;
    direct.deadline.reset();
    const InferenceResponse expected = repository_core->infer(direct);
    const Detections got = detections_of(response);
    EXPECT_EQ(got.labels, expected.labels);
    EXPECT_EQ(got.scores, expected.scores);
    EXPECT_TRUE(got.boxes.empty());

    // Without a deadline from the client, none reaches the core.
    grpc::ClientContext plain;
    ASSERT_TRUE(stub->ModelInfer(&plain, encoded_request(path, "plain"), &response).ok());
    EXPECT_FALSE(core->last_request().deadline.has_value());
}

TEST_F(GrpcFrontEnd, EachFailureHasItsCodeAndReasonAndTheServerGoesOn) {
    const std::string dog = test::darknet_file("data/dog.jpg");
    inference::ModelInferResponse response;

    inference::ModelInferRequest unknown = encoded_request(dog, "u");
    unknown.set_model_name("yolo-nope");
    grpc::Status status = infer(unknown, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_THAT(status.error_message(), HasSubstr("unknown model 'yolo-nope'"));
    inference::ModelMetadataRequest metadata_request;
    metadata_request.set_name("yolo-nope");
    inference::ModelMetadataResponse metadata;
    EXPECT_EQ(stub->ModelMetadata(context_with_deadline().get(), metadata_request, &metadata).error_code(),
              grpc::StatusCode::NOT_FOUND);
    inference::ModelReadyRequest ready_request;
    ready_request.set_name("yolo-lite");
    ready_request.set_version("2");
    inference::ModelReadyResponse ready;
    EXPECT_EQ(stub->ModelReady(context_with_deadline().get(), ready_request, &ready).error_code(),
              grpc::StatusCode::NOT_FOUND);

    inference::ModelInferRequest fp32 = encoded_request(dog, "f");
    fp32.mutable_inputs(0)->set_datatype("FP32");
    status = infer(fp32, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("datatype 'FP32' is not served"));

    inference::ModelInferRequest flat = pixel_request(dog, "s");
    flat.mutable_inputs(0)->set_shape(2, 1);
    status = infer(flat, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("UINT8 shape must be [H, W, 3]"));

    inference::ModelInferRequest garbage = encoded_request(dog, "g");
    garbage.set_raw_input_contents(0, join_raw_bytes({std::string(300, 'x')}));
    status = infer(garbage, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("request 'g' input 'image'"));

    inference::ModelInferRequest loose = encoded_request(dog, "t");
    (*loose.mutable_parameters())["thresh"].set_double_param(1.5);
    status = infer(loose, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("parameter 'thresh' must be a number in [0, 1]"));

    inference::ModelInferRequest masks = encoded_request(dog, "o");
    masks.add_outputs()->set_name("masks");
    status = infer(masks, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("unknown output 'masks'"));

    inference::ModelInferRequest empty;
    status = infer(empty, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

    EXPECT_FALSE(detections(encoded_request(dog, "after")).scores.empty());
}

TEST_F(GrpcFrontEnd, ConcurrentClientsEachGetTheirOwnAnswer) {
    // Clients tag requests with `id`; under concurrency no answer may go to another request.
    const std::string files[] = {test::darknet_file("data/dog.jpg"), test::darknet_file("data/person.jpg")};
    const Detections expected[] = {detections(encoded_request(files[0], "dog")),
                                   detections(encoded_request(files[1], "person"))};
    ASSERT_FALSE(expected[0] == expected[1]);
    constexpr int kClients = 4;  // within the front end's threads and the pool's admission queue
    ASSERT_LE(kClients, FrontEndOptions{}.threads) << "more would be refused for busy threads";
    constexpr int kCalls = 8;
    std::vector<std::thread> clients;
    std::vector<int> mismatches(kClients, 0);
    for (int c = 0; c < kClients; ++c)
        clients.emplace_back([&, c] {
            const auto own_stub = stub_for(front_end->port());  // its own connection, as separate clients
            for (int i = 0; i < kCalls; ++i) {
                const int which = (c + i) % 2;
                const std::string id = std::to_string(c) + "/" + std::to_string(i);
                inference::ModelInferResponse response;
                const grpc::Status status = own_stub->ModelInfer(
                    context_with_deadline().get(), encoded_request(files[which], id), &response);
                if (!status.ok() || response.id() != id || !(detections_of(response) == expected[which])) {
                    ++mismatches[c];
                    ADD_FAILURE() << "request " << id << ": " << status.error_message() << " id "
                                  << response.id();
                }
            }
        });
    for (std::thread& client : clients) client.join();
    EXPECT_EQ(mismatches, std::vector<int>(kClients, 0));
}

TEST_F(GrpcFrontEnd, AClientThatCancelsLeavesTheServerServing) {
    core->hold();
    grpc::ClientContext context;
    inference::ModelInferResponse response;
    grpc::Status status;
    std::thread call([&] {
        status = stub->ModelInfer(&context, encoded_request(test::darknet_file("data/dog.jpg"), "gone"),
                                  &response);
    });
    core->wait_for_calls(1);
    context.TryCancel();
    call.join();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED);
    core->release();  // the handler finishes its frame for nobody
    EXPECT_FALSE(detections(encoded_request(test::darknet_file("data/dog.jpg"), "next")).scores.empty());
}

TEST_F(GrpcFrontEnd, APassedDeadlineIsDeadlineExceeded) {
    // The core holds the call until its deadline has passed, so the model pool sees it expired.
    core->hold();
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
    inference::ModelInferResponse response;
    grpc::Status status;
    std::thread call([&] {
        status = stub->ModelInfer(&context, encoded_request(test::darknet_file("data/dog.jpg"), "late"),
                                  &response);
    });
    const InferenceRequest seen = core->wait_for_calls(1);
    ASSERT_TRUE(seen.deadline.has_value());
    std::this_thread::sleep_until(*seen.deadline + std::chrono::milliseconds(10));
    core->release();
    call.join();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
    // The server's own verdict, not only the client's timer.
    for (int i = 0; i < 1000 && !core->last_error(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(core->last_error(), ErrorKind::DeadlineExceeded);
}

/// The request's input moved into a shared-memory region: no contents, the region's parameters instead.
inference::ModelInferRequest front_end_shm_request(inference::ModelInferRequest request,
                                                   const std::string& region, std::int64_t offset,
                                                   std::int64_t byte_size) {
    request.clear_raw_input_contents();
    auto& parameters = *request.mutable_inputs(0)->mutable_parameters();
    parameters[kSharedMemoryRegionParameter].set_string_param(region);
    parameters[kSharedMemoryOffsetParameter].set_int64_param(offset);
    parameters[kSharedMemoryByteSizeParameter].set_int64_param(byte_size);
    return request;
}

bool lists_extension(const inference::ServerMetadataResponse& metadata, const std::string& extension) {
    return std::find(metadata.extensions().begin(), metadata.extensions().end(), extension) !=
           metadata.extensions().end();
}

TEST_F(GrpcFrontEnd, SharedMemoryIsRefusedUnlessTheServerAllowsIt) {
    // This suite's core was made without ClientSharedMemory::Allowed (the default, as without
    // --allow-client-shm).
    inference::ServerMetadataResponse server;
    ASSERT_TRUE(stub->ServerMetadata(context_with_deadline().get(), {}, &server).ok());
    EXPECT_TRUE(lists_extension(server, "binary_tensor_data"));
    EXPECT_FALSE(lists_extension(server, "system_shared_memory"));

    const test_support::ShmObject object(4096);
    inference::SystemSharedMemoryRegisterRequest registering;
    registering.set_name("r");
    registering.set_key(object.key());
    registering.set_byte_size(4096);
    inference::SystemSharedMemoryRegisterResponse registered;
    grpc::Status status =
        stub->SystemSharedMemoryRegister(context_with_deadline().get(), registering, &registered);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_THAT(status.error_message(), HasSubstr("--allow-client-shm"));
    // Nothing was mapped.
    EXPECT_EQ(test_support::shm_descriptors_of(object.key()), 0);

    inference::SystemSharedMemoryStatusResponse regions;
    EXPECT_EQ(stub->SystemSharedMemoryStatus(context_with_deadline().get(), {}, &regions).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    inference::SystemSharedMemoryUnregisterResponse unregistered;
    EXPECT_EQ(
        stub->SystemSharedMemoryUnregister(context_with_deadline().get(), {}, &unregistered).error_code(),
        grpc::StatusCode::PERMISSION_DENIED);
    inference::ModelInferResponse response;
    status =
        infer(front_end_shm_request(pixel_request(test::darknet_file("data/dog.jpg"), "shm"), "r", 0, 4096),
              response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_THAT(status.error_message(), HasSubstr("--allow-client-shm"));
}

/// The gRPC front end over a core that allows client shared memory (--allow-client-shm), with dog.jpg's
/// RGB pixels at byte 100 of a shared-memory object (not on a page) and the file in the BYTES raw form
/// after them.
class GrpcFrontEndSharedMemory : public GrpcFrontEnd {
protected:
    // The suite's own core, in the base's place (GrpcFrontEnd's TearDownTestSuite deletes it): suites run
    // one after the other, so the two never hold it at once.
    static void SetUpTestSuite() {
        if (test::shared_dir().empty()) return;
        repository_core = new RepositoryCore(yolo_lite_repository("grpc_front_end_shm"), PoolOptions{}, "/",
                                             ClientSharedMemory::Allowed);
    }

    void SetUp() override {
        GrpcFrontEnd::SetUp();
        if (IsSkipped()) return;
        dog = test::darknet_file("data/dog.jpg");
        const Image image = load_image(dog);
        pixels = rgb_pixels(image);
        raw_file = join_raw_bytes({file_text(dog)});
        object = std::make_unique<test_support::ShmObject>(100 + pixels.size() + raw_file.size());
        object->write(100, pixels);
        object->write(100 + pixels.size(), raw_file);
    }
    void TearDown() override {
        // Leaves no region for the next test (the core lives for the suite).
        if (repository_core) repository_core->shared_memory().unregister("");
    }

    grpc::Status register_region(const std::string& name, const std::string& key, std::uint64_t offset,
                                 std::uint64_t byte_size) {
        inference::SystemSharedMemoryRegisterRequest request;
        request.set_name(name);
        request.set_key(key);
        request.set_offset(offset);
        request.set_byte_size(byte_size);
        inference::SystemSharedMemoryRegisterResponse response;
        return stub->SystemSharedMemoryRegister(context_with_deadline().get(), request, &response);
    }
    grpc::Status region_status(const std::string& name,
                               inference::SystemSharedMemoryStatusResponse& response) {
        inference::SystemSharedMemoryStatusRequest request;
        request.set_name(name);
        return stub->SystemSharedMemoryStatus(context_with_deadline().get(), request, &response);
    }
    grpc::Status unregister_region(const std::string& name) {
        inference::SystemSharedMemoryUnregisterRequest request;
        request.set_name(name);
        inference::SystemSharedMemoryUnregisterResponse response;
        return stub->SystemSharedMemoryUnregister(context_with_deadline().get(), request, &response);
    }
    /// The pixels' request through region "dog" (registered over all of the object from byte 100).
    inference::ModelInferRequest pixels_in_region(const std::string& id) const {
        return front_end_shm_request(pixel_request(dog, id), "dog", 0,
                                     static_cast<std::int64_t>(pixels.size()));
    }

    std::string dog;
    std::string pixels;
    std::string raw_file;
    std::unique_ptr<test_support::ShmObject> object;
};

TEST_F(GrpcFrontEndSharedMemory, InputsFromARegionGiveTheInlineDetections) {
    inference::ServerMetadataResponse server;
    ASSERT_TRUE(stub->ServerMetadata(context_with_deadline().get(), {}, &server).ok());
    EXPECT_TRUE(lists_extension(server, "system_shared_memory"));

    const std::uint64_t region_size = pixels.size() + raw_file.size();
    grpc::Status status = register_region("dog", object->key(), 100, region_size);
    ASSERT_TRUE(status.ok()) << status.error_message();
    inference::SystemSharedMemoryStatusResponse regions;
    ASSERT_TRUE(region_status("", regions).ok());
    ASSERT_EQ(regions.regions_size(), 1);
    const auto& entry = regions.regions().at("dog");
    EXPECT_EQ(entry.name(), "dog");
    EXPECT_EQ(entry.key(), object->key());
    EXPECT_EQ(entry.offset(), 100u);
    EXPECT_EQ(entry.byte_size(), region_size);

    const Detections expected = detections(pixel_request(dog, "inline"));
    ASSERT_FALSE(expected.scores.empty());
    EXPECT_TRUE(detections(pixels_in_region("shm pixels")) == expected);
    // The detector read the region in place (the core saw a view into the server's mapping).
    EXPECT_EQ(core->last_request().image.bytes.data(),
              repository_core->shared_memory().bytes("dog", 0, 0, "test").bytes.data());
    inference::ModelInferRequest encoded = front_end_shm_request(encoded_request(dog, "shm file"), "dog",
                                                                 static_cast<std::int64_t>(pixels.size()),
                                                                 static_cast<std::int64_t>(raw_file.size()));
    EXPECT_TRUE(detections(encoded) == expected);

    // Each failure with its code.
    EXPECT_EQ(register_region("dog", object->key(), 0, 16).error_code(), grpc::StatusCode::ALREADY_EXISTS);
    status = register_region("bad", "../etc/passwd", 0, 16);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("not a shared-memory object name"));
    EXPECT_EQ(register_region("big", object->key(), 0, object->size() + 1).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(region_status("nope", regions).error_code(), grpc::StatusCode::NOT_FOUND);
    inference::ModelInferResponse response;
    status = infer(
        front_end_shm_request(pixel_request(dog, "beyond"), "dog", 1, static_cast<std::int64_t>(region_size)),
        response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), HasSubstr("outside region 'dog'"));

    // Unregistered, the region is gone for status and requests alike.
    ASSERT_TRUE(unregister_region("dog").ok());
    regions.Clear();
    ASSERT_TRUE(region_status("", regions).ok());
    EXPECT_EQ(regions.regions_size(), 0);
    status = infer(pixels_in_region("after"), response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_THAT(status.error_message(), HasSubstr("no shared-memory region 'dog'"));
    EXPECT_EQ(unregister_region("dog").error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(GrpcFrontEndSharedMemory, ARegionUnregisteredDuringAnInferenceStaysMappedForIt) {
    ASSERT_TRUE(register_region("dog", object->key(), 100, pixels.size()).ok());
    const Image image = load_image(dog);
    InferenceRequest direct;
    direct.model = "yolo-lite";
    direct.image.form = ImageInput::Form::RgbPixels;
    direct.image.height = image.h;
    direct.image.width = image.w;
    direct.image.hold(pixels);
    const Detections expected = detections_of(repository_core->infer(direct));

    // The core holds the call after the front end has read the request, while a client unregisters
    // every region: the request's view must stay mapped until the detector is done with it.
    core->hold();
    inference::ModelInferResponse response;
    grpc::Status status;
    std::thread call([&] { status = infer(pixels_in_region("in flight"), response); });
    core->wait_for_calls(1);
    EXPECT_TRUE(unregister_region("").ok());
    core->release();
    call.join();
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_TRUE(detections_of(response) == expected);
}

}  // namespace
}  // namespace fpgacnn::serve

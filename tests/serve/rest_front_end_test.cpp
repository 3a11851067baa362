// The REST front end in-process on 127.0.0.1 over a RepositoryCore with YOLO-LITE, called over HTTP as
// any client would: every route, both input forms in both encodings (JSON, binary tensor data) giving
// the InferenceCore's own detections, parameters and requested outputs reaching the core, each
// failure with its status and reason, concurrent clients each getting their own answer, and the
// system shared-memory extension (refused unless the core allows it; inputs read from a registered region).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <future>

#include "rest_test_support.hpp"
#include "shm_test_support.hpp"

namespace fpgacnn::serve {
namespace {

using ::testing::HasSubstr;
using namespace test_support;
using nlohmann::json;

class RestFrontEnd : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (test::shared_dir().empty()) return;
        repository_core = new RepositoryCore(yolo_lite_repository("rest_front_end"), PoolOptions{});
    }
    static void TearDownTestSuite() {
        delete repository_core;
        repository_core = nullptr;
    }

    void SetUp() override {
        FPGACNN_REQUIRE_SHARED_MODELS();
        core = std::make_unique<RecordingCore>(*repository_core);
        FrontEndOptions options;
        options.max_body_bytes = 32u << 20;
        front_end = start_rest_front_end(*core, options);
        ASSERT_NE(front_end->port(), 0);
    }

    HttpAnswer get(const std::string& target) { return http_call(front_end->port(), "GET", target); }
    HttpAnswer post(const std::string& target, const RestRequestBody& request) {
        return http_call(front_end->port(), "POST", target, request.body, request.headers);
    }
    HttpAnswer infer(const RestRequestBody& request) { return post("/v2/models/yolo-lite/infer", request); }

    /// The detections of an inference that must succeed.
    Detections detections(const RestRequestBody& request, const std::string& id) {
        const HttpAnswer answer = infer(request);
        EXPECT_EQ(answer.status, 200) << answer.error << answer.body.substr(0, 300);
        if (answer.status != 200) return {};
        std::string answered_id;
        Detections d = detections_of(answer, &answered_id);
        EXPECT_EQ(answered_id, id);
        return d;
    }

    static Detections direct_detections(const std::string& path) {
        InferenceRequest direct;
        direct.model = "yolo-lite";
        direct.image.form = ImageInput::Form::Encoded;
        direct.image.hold(file_text(path));
        return detections_of(repository_core->infer(direct));
    }

    static RepositoryCore* repository_core;
    std::unique_ptr<RecordingCore> core;
    std::unique_ptr<FrontEnd> front_end;
};

RepositoryCore* RestFrontEnd::repository_core = nullptr;

TEST_F(RestFrontEnd, EveryRouteAnswers) {
    HttpAnswer answer = get("/v2/health/live");
    EXPECT_EQ(answer.status, 200) << answer.error;
    EXPECT_EQ(json::parse(answer.body)["live"], true);
    EXPECT_EQ(get("/v2/health/ready").status, 200);
    EXPECT_EQ(get("/v2/models/yolo-lite/ready").status, 200);
    EXPECT_EQ(get("/v2/models/yolo-lite/versions/1/ready").status, 200);

    answer = get("/v2");
    ASSERT_EQ(answer.status, 200);
    EXPECT_EQ(answer.headers["content-type"], "application/json");
    const json server = json::parse(answer.body);
    EXPECT_EQ(server["name"], "fpgacnn");
    EXPECT_EQ(server["version"], repository_core->server_metadata().version);

    answer = get("/v2/models/yolo-lite");
    ASSERT_EQ(answer.status, 200);
    const json model = json::parse(answer.body);
    EXPECT_EQ(model["name"], "yolo-lite");
    EXPECT_EQ(model["versions"], json({"1"}));
    ASSERT_EQ(model["inputs"].size(), 1u);
    EXPECT_EQ(model["inputs"][0]["name"], "image");
    std::vector<std::string> outputs;
    for (const json& output : model["outputs"]) outputs.push_back(output["name"]);
    EXPECT_EQ(outputs, (std::vector<std::string>{"boxes", "scores", "classes", "labels"}));

    answer = get("/metrics");
    ASSERT_EQ(answer.status, 200);
    EXPECT_THAT(answer.headers["content-type"], HasSubstr("text/plain"));
    EXPECT_THAT(answer.body, HasSubstr("fpgacnn_queue_depth{model=\"yolo-lite\"}"));
    // A query string does not change the route.
    EXPECT_EQ(get("/v2/health/live?verbose=1").status, 200);
}

TEST_F(RestFrontEnd, BothInputFormsInBothEncodingsGiveTheCoresDetections) {
    for (const char* file : {"data/dog.jpg", "data/person.jpg"}) {
        const std::string path = test::darknet_file(file);
        const Detections expected = direct_detections(path);
        ASSERT_FALSE(expected.scores.empty()) << file;
        for (const InputForm form : {InputForm::EncodedJson, InputForm::PixelsJson, InputForm::EncodedBinary,
                                     InputForm::PixelsBinary}) {
            const std::string id = std::string(file) + " form " + std::to_string(static_cast<int>(form));
            EXPECT_TRUE(detections(infer_body(path, id, form), id) == expected) << id;
        }
        // Outputs as binary data: all of them, or one.
        const std::string id = std::string(file) + " binary out";
        EXPECT_TRUE(detections(infer_body(path, id, InputForm::EncodedBinary,
                                          {{"parameters", {{"binary_data_output", true}}}}),
                               id) == expected)
            << file;
        const HttpAnswer one_binary = infer(infer_body(
            path, id, InputForm::EncodedJson,
            {{"outputs",
              {{{"name", "scores"}, {"parameters", {{"binary_data", true}}}}, {{"name", "labels"}}}}}));
        ASSERT_EQ(one_binary.status, 200) << one_binary.body;
        EXPECT_EQ(one_binary.headers.at("content-type"), "application/octet-stream");
        const Detections got = detections_of(one_binary);
        EXPECT_EQ(got.scores, expected.scores);
        EXPECT_EQ(got.labels, expected.labels);
        EXPECT_TRUE(got.boxes.empty());
    }
}

TEST_F(RestFrontEnd, ParametersOutputsAndTheTimeoutReachTheCore) {
    const std::string path = test::darknet_file("data/person.jpg");
    const auto before = std::chrono::steady_clock::now();
    const HttpAnswer answer =
        infer(infer_body(path, "params", InputForm::EncodedBinary,
                         {{"parameters", {{"thresh", 0.1}, {"nms", "0.3"}, {"timeout", 100}}},
                          {"outputs", {{{"name", "labels"}}, {{"name", "scores"}}}}}));
    ASSERT_EQ(answer.status, 200) << answer.body;
    const InferenceRequest seen = core->last_request();
    EXPECT_EQ(seen.thresh, 0.1f);
    EXPECT_EQ(seen.nms, 0.3f);
    EXPECT_EQ(seen.requested_outputs, (std::vector<std::string>{"labels", "scores"}));
    ASSERT_TRUE(seen.deadline.has_value());
    EXPECT_GE(*seen.deadline, before + std::chrono::seconds(100));
    EXPECT_LE(*seen.deadline, std::chrono::steady_clock::now() + std::chrono::seconds(100));

    const json message = json::parse(answer.body);
    ASSERT_EQ(message["outputs"].size(), 2u);
    EXPECT_EQ(message["outputs"][0]["name"], "labels");
    EXPECT_EQ(message["outputs"][1]["name"], "scores");
    InferenceRequest direct = seen;
    direct.deadline.reset();
    const InferenceResponse expected = repository_core->infer(direct);
    const Detections got = detections_of(answer);
    EXPECT_EQ(got.labels, expected.labels);
    EXPECT_EQ(got.scores, expected.scores);

    ASSERT_EQ(infer(infer_body(path, "plain", InputForm::EncodedBinary)).status, 200);
    EXPECT_FALSE(core->last_request().deadline.has_value());
}

TEST_F(RestFrontEnd, EachFailureHasItsStatusAndReasonAndTheServerGoesOn) {
    const std::string dog = test::darknet_file("data/dog.jpg");
    const auto expect_error = [&](const HttpAnswer& answer, int status, const std::string& reason) {
        EXPECT_EQ(answer.status, status) << answer.error << answer.body;
        const json body = json::parse(answer.body, nullptr, false);
        ASSERT_TRUE(body.is_object()) << answer.body;
        EXPECT_THAT(body.value("error", ""), HasSubstr(reason));
    };
    const auto raw = [](const std::string& body) { return RestRequestBody{body, {}}; };
    expect_error(infer(raw("{not json")), 400, "not valid JSON");
    expect_error(infer(raw("[1, 2]")), 400, "must be a JSON object");
    expect_error(infer(raw(R"({"inputs": []})")), 400, "takes one input");
    expect_error(
        infer(raw(
            R"({"id": "t", "inputs": [{"name": "image", "datatype": "FP32", "shape": [1], "data": [1.0]}]})")),
        400, "FP32");
    expect_error(
        infer(raw(
            R"({"id": "s", "inputs": [{"name": "image", "datatype": "UINT8", "shape": [2, 2, 3], "data": [1, 2, 3]}]})")),
        400, "image");
    expect_error(
        infer(raw(
            R"({"inputs": [{"name": "image", "datatype": "UINT8", "shape": [1, 1, 3], "data": [1, 2, 300]}]})")),
        400, "0..255");
    expect_error(
        infer(raw(
            R"({"inputs": [{"name": "image", "datatype": "BYTES", "shape": [1], "data": [{"b64": "!!"}]}]})")),
        400, "not base64");
    expect_error(infer(infer_body(dog, "p", InputForm::EncodedJson, {{"parameters", {{"thresh", "high"}}}})),
                 400, "parameter 'thresh'");
    expect_error(infer(infer_body(dog, "p", InputForm::EncodedJson, {{"parameters", {{"timeout", -1}}}})),
                 400, "timeout");
    RestRequestBody beyond = infer_body(dog, "h", InputForm::EncodedBinary);
    beyond.headers.back().second = "999999999";
    expect_error(infer(beyond), 400, "beyond the body");
    expect_error(post("/v2/models/no-such-model/infer", infer_body(dog, "u", InputForm::EncodedJson)), 404,
                 "no-such-model");
    expect_error(get("/v2/models/no-such-model"), 404, "no-such-model");
    expect_error(get("/v2/nothing/here"), 404, "/v2/models/{name}/infer");
    const HttpAnswer wrong_method = http_call(front_end->port(), "GET", "/v2/models/yolo-lite/infer");
    expect_error(wrong_method, 405, "POST only");
    EXPECT_EQ(wrong_method.headers.at("allow"), "POST");
    expect_error(post("/v2/models/yolo-lite/infer",
                      RestRequestBody{std::string(33u << 20, ' '), {{"Content-Type", "application/json"}}}),
                 413, "--max-body-bytes");

    // The server goes on.
    EXPECT_FALSE(detections(infer_body(dog, "after", InputForm::EncodedBinary), "after").scores.empty());
}

TEST_F(RestFrontEnd, ConcurrentClientsEachGetTheirOwnAnswer) {
    const std::vector<std::string> files = {test::darknet_file("data/dog.jpg"),
                                            test::darknet_file("data/person.jpg"),
                                            test::darknet_file("data/horses.jpg")};
    std::vector<Detections> expected;
    for (const std::string& file : files) expected.push_back(direct_detections(file));
    constexpr int kClients = 6;
    constexpr int kRequestsEach = 3;
    std::vector<std::future<int>> clients;
    for (int c = 0; c < kClients; ++c) {
        clients.push_back(std::async(std::launch::async, [&, c] {
            int right = 0;
            for (int r = 0; r < kRequestsEach; ++r) {
                const std::size_t which = static_cast<std::size_t>(c + r) % files.size();
                const std::string id = "client " + std::to_string(c) + " request " + std::to_string(r);
                const HttpAnswer answer = infer(infer_body(files[which], id, InputForm::EncodedBinary));
                std::string answered_id;
                if (answer.status == 200 && detections_of(answer, &answered_id) == expected[which] &&
                    answered_id == id)
                    ++right;
            }
            return right;
        }));
    }
    for (auto& client : clients) EXPECT_EQ(client.get(), kRequestsEach);
}

/// An infer body whose `image` input names a shared-memory region instead of carrying data.
RestRequestBody rest_front_end_shm_body(const std::string& id, const std::string& datatype, const json& shape,
                                        const std::string& region, std::size_t offset,
                                        std::size_t byte_size) {
    const json input = {{"name", "image"},
                        {"datatype", datatype},
                        {"shape", shape},
                        {"parameters",
                         {{"shared_memory_region", region},
                          {"shared_memory_offset", offset},
                          {"shared_memory_byte_size", byte_size}}}};
    const json message = {{"id", id}, {"inputs", json::array({input})}};
    return {message.dump(), {{"Content-Type", "application/json"}}};
}

RestRequestBody json_body(const json& message) {
    return {message.dump(), {{"Content-Type", "application/json"}}};
}

bool lists_extension(const HttpAnswer& server_metadata, const std::string& extension) {
    const json extensions = json::parse(server_metadata.body).at("extensions");
    return std::find(extensions.begin(), extensions.end(), extension) != extensions.end();
}

TEST_F(RestFrontEnd, SharedMemoryIsRefusedUnlessTheServerAllowsIt) {
    // This suite's core was made without ClientSharedMemory::Allowed (the default, as without
    // --allow-client-shm).
    const HttpAnswer server = get("/v2");
    ASSERT_EQ(server.status, 200) << server.error;
    EXPECT_TRUE(lists_extension(server, "binary_tensor_data"));
    EXPECT_FALSE(lists_extension(server, "system_shared_memory"));

    const test_support::ShmObject object(4096);
    const auto expect_forbidden = [](const HttpAnswer& answer) {
        EXPECT_EQ(answer.status, 403) << answer.error << answer.body;
        EXPECT_THAT(json::parse(answer.body, nullptr, false).value("error", ""),
                    HasSubstr("--allow-client-shm"));
    };
    expect_forbidden(post("/v2/systemsharedmemory/region/r/register",
                          json_body({{"key", object.key()}, {"offset", 0}, {"byte_size", 4096}})));
    EXPECT_EQ(test_support::shm_descriptors_of(object.key()), 0);  // nothing was mapped
    expect_forbidden(get("/v2/systemsharedmemory/status"));
    expect_forbidden(get("/v2/systemsharedmemory/region/r/status"));
    expect_forbidden(post("/v2/systemsharedmemory/unregister", {}));
    expect_forbidden(post("/v2/systemsharedmemory/region/r/unregister", {}));
    expect_forbidden(infer(rest_front_end_shm_body("shm", "UINT8", {32, 32, 3}, "r", 0, 3072)));

    // The routes are the protocol's whatever the setting: a wrong method is 405, no region name 404.
    const HttpAnswer wrong_method = get("/v2/systemsharedmemory/region/r/register");
    EXPECT_EQ(wrong_method.status, 405) << wrong_method.body;
    EXPECT_EQ(wrong_method.headers.at("allow"), "POST");
    EXPECT_EQ(post("/v2/systemsharedmemory/status", {}).status, 405);
    EXPECT_EQ(
        post("/v2/systemsharedmemory/register", json_body({{"key", object.key()}, {"byte_size", 1}})).status,
        404);
}

/// The REST front end over a core that allows client shared memory (--allow-client-shm), with dog.jpg's
/// RGB pixels at byte 100 of a shared-memory object (not on a page) and the file in the BYTES raw form
/// after them.
class RestFrontEndSharedMemory : public RestFrontEnd {
protected:
    // The suite's own core, in the base's place (RestFrontEnd's TearDownTestSuite deletes it): suites run
    // one after the other, so the two never hold it at once.
    static void SetUpTestSuite() {
        if (test::shared_dir().empty()) return;
        repository_core = new RepositoryCore(yolo_lite_repository("rest_front_end_shm"), PoolOptions{}, "/",
                                             ClientSharedMemory::Allowed);
    }

    void SetUp() override {
        RestFrontEnd::SetUp();
        if (IsSkipped()) return;
        dog = test::darknet_file("data/dog.jpg");
        image = load_image(dog);
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

    HttpAnswer register_region(const std::string& name, const json& body) {
        return post("/v2/systemsharedmemory/region/" + name + "/register", json_body(body));
    }

    std::string dog;
    Image image;
    std::string pixels;
    std::string raw_file;
    std::unique_ptr<test_support::ShmObject> object;
};

TEST_F(RestFrontEndSharedMemory, InputsFromARegionGiveTheInlineDetections) {
    EXPECT_TRUE(lists_extension(get("/v2"), "system_shared_memory"));

    const std::size_t region_size = pixels.size() + raw_file.size();
    HttpAnswer answer =
        register_region("dog", {{"key", object->key()}, {"offset", 100}, {"byte_size", region_size}});
    ASSERT_EQ(answer.status, 200) << answer.error << answer.body;
    EXPECT_EQ(json::parse(answer.body), json::object());
    const json entry = {{"name", "dog"}, {"key", object->key()}, {"offset", 100}, {"byte_size", region_size}};
    answer = get("/v2/systemsharedmemory/status");
    ASSERT_EQ(answer.status, 200) << answer.body;
    EXPECT_EQ(answer.headers["content-type"], "application/json");
    EXPECT_EQ(json::parse(answer.body), json::array({entry}));
    answer = get("/v2/systemsharedmemory/region/dog/status");
    ASSERT_EQ(answer.status, 200) << answer.body;
    EXPECT_EQ(json::parse(answer.body), json::array({entry}));

    const Detections expected = detections(infer_body(dog, "inline", InputForm::PixelsBinary), "inline");
    ASSERT_FALSE(expected.scores.empty());
    EXPECT_TRUE(detections(rest_front_end_shm_body("shm pixels", "UINT8", {image.h, image.w, 3}, "dog", 0,
                                                   pixels.size()),
                           "shm pixels") == expected);
    // The detector read the region in place (the core saw a view into the server's mapping).
    EXPECT_EQ(core->last_request().image.bytes.data(),
              repository_core->shared_memory().bytes("dog", 0, 0, "test").bytes.data());
    EXPECT_TRUE(
        detections(rest_front_end_shm_body("shm file", "BYTES", {1}, "dog", pixels.size(), raw_file.size()),
                   "shm file") == expected);

    // Each failure with its status.
    answer = register_region("dog", {{"key", object->key()}, {"byte_size", 16}});
    EXPECT_EQ(answer.status, 400);
    EXPECT_THAT(answer.body, HasSubstr("already registered"));
    answer = register_region("bad", {{"key", "/../etc/passwd"}, {"byte_size", 16}});
    EXPECT_EQ(answer.status, 400);
    EXPECT_THAT(answer.body, HasSubstr("not a shared-memory object name"));
    answer = register_region("sizeless", {{"key", object->key()}});
    EXPECT_EQ(answer.status, 400);
    EXPECT_THAT(answer.body, HasSubstr("no 'byte_size'"));
    EXPECT_EQ(get("/v2/systemsharedmemory/region/nope/status").status, 404);
    answer = infer(rest_front_end_shm_body("beyond", "UINT8", {image.h, image.w, 3}, "dog", 1, region_size));
    EXPECT_EQ(answer.status, 400);
    EXPECT_THAT(answer.body, HasSubstr("outside region 'dog'"));

    // Unregistered, the region is gone for status and requests alike.
    answer = post("/v2/systemsharedmemory/region/dog/unregister", {});
    ASSERT_EQ(answer.status, 200) << answer.body;
    answer = get("/v2/systemsharedmemory/status");
    ASSERT_EQ(answer.status, 200);
    EXPECT_EQ(json::parse(answer.body), json::array());
    answer = infer(rest_front_end_shm_body("after", "UINT8", {image.h, image.w, 3}, "dog", 0, pixels.size()));
    EXPECT_EQ(answer.status, 404);
    EXPECT_THAT(answer.body, HasSubstr("no shared-memory region 'dog'"));
    EXPECT_EQ(post("/v2/systemsharedmemory/region/dog/unregister", {}).status, 404);

    // Unregistering every region.
    ASSERT_EQ(register_region("a", {{"key", object->key()}, {"byte_size", 16}}).status, 200);
    ASSERT_EQ(register_region("b", {{"key", object->key()}, {"byte_size", 16}}).status, 200);
    EXPECT_EQ(post("/v2/systemsharedmemory/unregister", {}).status, 200);
    EXPECT_EQ(json::parse(get("/v2/systemsharedmemory/status").body), json::array());
}

}  // namespace
}  // namespace fpgacnn::serve

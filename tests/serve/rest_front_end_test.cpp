// The REST front end in-process on 127.0.0.1 over a RepositoryCore with YOLO-LITE, called over HTTP as
// any client would: every route, both input forms in both encodings (JSON, binary tensor data) giving
// the InferenceCore's own detections, parameters and requested outputs reaching the core, each
// failure with its status and reason, and concurrent clients each getting their own answer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>

#include "rest_test_support.hpp"

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

}  // namespace
}  // namespace fpgacnn::serve

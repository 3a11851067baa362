// The REST binding's pure pieces: which route a request line names, the JSON and binary-extension
// bodies of an inference request and response, and base64.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "protocol_tensors.hpp"
#include "rest_messages.hpp"

namespace fpgacnn::serve {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(RestMessages, RoutesOfTheProtocol) {
    EXPECT_EQ(route_rest("GET", "/v2/health/live").kind, RestRouteKind::Live);
    EXPECT_EQ(route_rest("GET", "/v2/health/ready").kind, RestRouteKind::Ready);
    EXPECT_EQ(route_rest("GET", "/v2").kind, RestRouteKind::ServerMetadata);
    EXPECT_EQ(route_rest("GET", "/metrics").kind, RestRouteKind::Metrics);
    const RestRoute metadata = route_rest("GET", "/v2/models/yolo-lite");
    EXPECT_EQ(metadata.kind, RestRouteKind::ModelMetadata);
    EXPECT_EQ(metadata.model, "yolo-lite");
    EXPECT_EQ(metadata.version, "");
    const RestRoute ready = route_rest("GET", "/v2/models/m/versions/1/ready");
    EXPECT_EQ(ready.kind, RestRouteKind::ModelReady);
    EXPECT_EQ(ready.version, "1");
    const RestRoute infer = route_rest("POST", "/v2/models/m/infer?x=1");
    EXPECT_EQ(infer.kind, RestRouteKind::Infer);
    EXPECT_EQ(infer.model, "m");

    EXPECT_EQ(route_rest("GET", "/v2/models/m/infer").kind, RestRouteKind::MethodNotAllowed);
    EXPECT_EQ(route_rest("POST", "/v2/health/live").kind, RestRouteKind::MethodNotAllowed);
    EXPECT_STREQ(rest_route_method("/v2/models/m/infer"), "POST");
    EXPECT_STREQ(rest_route_method("/v2"), "GET");
    for (const char* unknown : {"/", "/v3", "/v2/models", "/v2/models/m/versions", "/v2/models/m/explain",
                                "/v2/health", "http://x/v2", "*"})
        EXPECT_EQ(route_rest("GET", unknown).kind, RestRouteKind::NotFound) << unknown;
    EXPECT_TRUE(rest_route_is_probe(RestRouteKind::Live));
    EXPECT_FALSE(rest_route_is_probe(RestRouteKind::Metrics));
}

TEST(RestMessages, Base64) {
    EXPECT_EQ(decode_base64("", "t"), "");
    EXPECT_EQ(decode_base64("Zg==", "t"), "f");
    EXPECT_EQ(decode_base64("Zm8=", "t"), "fo");
    EXPECT_EQ(decode_base64("Zm9v", "t"), "foo");
    EXPECT_EQ(decode_base64("Zm9vYg", "t"), "foob");
    EXPECT_EQ(decode_base64("/+8A", "t"), std::string("\xff\xef\x00", 3));
    EXPECT_THROW(decode_base64("Zm9vY", "t"), ServeError);
    try {
        decode_base64("Zm$v", "input 'image'");
        FAIL();
    } catch (const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
        EXPECT_THAT(e.what(), HasSubstr("input 'image'"));
    }
}

TEST(RestMessages, PixelsAsNestedJsonOrBinaryMeanTheSame) {
    const json nested = {{"id", "a"},
                         {"inputs",
                          {{{"name", "image"},
                            {"datatype", "UINT8"},
                            {"shape", {1, 2, 3}},
                            {"data", {{{1, 2, 3}, {4, 5, 255}}}}}}}};
    const RestInferRequest from_json = request_from_rest("m", "", nested.dump(), std::nullopt);
    EXPECT_EQ(from_json.inference.id, "a");
    EXPECT_EQ(from_json.inference.image.form, ImageInput::Form::RgbPixels);
    EXPECT_EQ(from_json.inference.image.bytes, std::string_view("\x01\x02\x03\x04\x05\xff", 6));

    const json header = {{"id", "a"},
                         {"inputs",
                          {{{"name", "image"},
                            {"datatype", "UINT8"},
                            {"shape", {1, 2, 3}},
                            {"parameters", {{"binary_data_size", 6}}}}}}};
    const std::string text = header.dump();
    const std::string body = text + std::string("\x01\x02\x03\x04\x05\xff", 6);
    const RestInferRequest from_binary = request_from_rest("m", "", body, std::to_string(text.size()));
    EXPECT_EQ(from_binary.inference.image.bytes, from_json.inference.image.bytes);

    // Sizes that do not add up are named.
    EXPECT_THROW(request_from_rest("m", "", body + "x", std::to_string(text.size())), ServeError);
    EXPECT_THROW(request_from_rest("m", "", body, std::string("12abc")), ServeError);
    EXPECT_THROW(request_from_rest("m", "", text, std::nullopt), ServeError);  // binary_data_size, no header
}

TEST(RestMessages, ResponseInJsonOrWithBinaryOutputs) {
    InferenceResponse response;
    response.model = "m";
    response.model_version = "1";
    response.id = "r";
    response.boxes = {1.5f, 2.0f, 30.25f, 40.0f};
    response.scores = {0.75f};
    response.classes = {7};
    response.labels = {"cat"};
    response.outputs = output_names();

    RestInferRequest request;
    const RestBody as_json = response_to_rest(response, request);
    EXPECT_FALSE(as_json.json_length.has_value());
    const json message = json::parse(as_json.bytes);
    EXPECT_EQ(message["model_name"], "m");
    EXPECT_EQ(message["id"], "r");
    EXPECT_EQ(message["outputs"][0]["shape"], json({1, 4}));
    EXPECT_EQ(message["outputs"][0]["data"], json({1.5, 2.0, 30.25, 40.0}));
    EXPECT_EQ(message["outputs"][2]["datatype"], "INT32");
    EXPECT_EQ(message["outputs"][3]["data"], json({"cat"}));

    request.binary_outputs = {"scores"};
    const RestBody mixed = response_to_rest(response, request);
    ASSERT_TRUE(mixed.json_length.has_value());
    const json header = json::parse(mixed.bytes.substr(0, *mixed.json_length));
    EXPECT_EQ(header["outputs"][1]["parameters"]["binary_data_size"], 4);
    EXPECT_FALSE(header["outputs"][1].contains("data"));
    ASSERT_EQ(mixed.bytes.size(), *mixed.json_length + 4);
    float score = 0;
    std::memcpy(&score, mixed.bytes.data() + *mixed.json_length, 4);
    EXPECT_EQ(score, 0.75f);
}

}  // namespace
}  // namespace fpgacnn::serve

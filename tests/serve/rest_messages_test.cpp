// The REST binding's pure pieces: which route a request line names, the JSON and binary-extension
// bodies of an inference request and response, base64, and the system shared-memory extension's
// routes, bodies and inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include <nlohmann/json.hpp>

#include "protocol_tensors.hpp"
#include "rest_messages.hpp"
#include "shm_test_support.hpp"

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

TEST(RestMessages, SharedMemoryRoutes) {
    const RestRoute all_status = route_rest("GET", "/v2/systemsharedmemory/status");
    EXPECT_EQ(all_status.kind, RestRouteKind::SharedMemoryStatus);
    EXPECT_EQ(all_status.region, "");
    const RestRoute one_status = route_rest("GET", "/v2/systemsharedmemory/region/input0/status?x=1");
    EXPECT_EQ(one_status.kind, RestRouteKind::SharedMemoryStatus);
    EXPECT_EQ(one_status.region, "input0");
    const RestRoute registering = route_rest("POST", "/v2/systemsharedmemory/region/input0/register");
    EXPECT_EQ(registering.kind, RestRouteKind::SharedMemoryRegister);
    EXPECT_EQ(registering.region, "input0");
    const RestRoute all_unregister = route_rest("POST", "/v2/systemsharedmemory/unregister");
    EXPECT_EQ(all_unregister.kind, RestRouteKind::SharedMemoryUnregister);
    EXPECT_EQ(all_unregister.region, "");
    const RestRoute one_unregister = route_rest("POST", "/v2/systemsharedmemory/region/input0/unregister");
    EXPECT_EQ(one_unregister.kind, RestRouteKind::SharedMemoryUnregister);
    EXPECT_EQ(one_unregister.region, "input0");
    // The model routes carry no region.
    EXPECT_EQ(route_rest("POST", "/v2/models/m/infer").region, "");

    // Status is read with GET; register and unregister change the server, so POST.
    EXPECT_EQ(route_rest("GET", "/v2/systemsharedmemory/region/r/register").kind,
              RestRouteKind::MethodNotAllowed);
    EXPECT_EQ(route_rest("GET", "/v2/systemsharedmemory/unregister").kind, RestRouteKind::MethodNotAllowed);
    EXPECT_EQ(route_rest("POST", "/v2/systemsharedmemory/status").kind, RestRouteKind::MethodNotAllowed);
    EXPECT_STREQ(rest_route_method("/v2/systemsharedmemory/region/r/register"), "POST");
    EXPECT_STREQ(rest_route_method("/v2/systemsharedmemory/region/r/unregister"), "POST");
    EXPECT_STREQ(rest_route_method("/v2/systemsharedmemory/region/r/status"), "GET");
    EXPECT_FALSE(rest_route_is_probe(RestRouteKind::SharedMemoryStatus));  // behind the token, if any

    // There is no "register everything": a register call without a region name is no route.
    for (const char* unknown :
         {"/v2/systemsharedmemory/register", "/v2/systemsharedmemory", "/v2/systemsharedmemory/region/r",
          "/v2/systemsharedmemory/region/status", "/v2/systemsharedmemory/region/r/status/x",
          "/v2/systemsharedmemory/regions/r/status", "/v2/cudasharedmemory/status"}) {
        EXPECT_EQ(route_rest("POST", unknown).kind, RestRouteKind::NotFound) << unknown;
        EXPECT_EQ(route_rest("GET", unknown).kind, RestRouteKind::NotFound) << unknown;
    }
}

TEST(RestMessages, SharedMemoryRegisterBodyAndStatusJson) {
    const SharedMemoryRegionStatus region = register_request_from_rest(
        "input0", R"({"key": "/client-shm", "offset": 4096, "byte_size": 1327104})");
    EXPECT_EQ(region.name, "input0");
    EXPECT_EQ(region.key, "/client-shm");
    EXPECT_EQ(region.offset, 4096u);
    EXPECT_EQ(region.byte_size, 1327104u);
    EXPECT_EQ(register_request_from_rest("r", R"({"key": "/k", "byte_size": 10})").offset, 0u);  // default

    for (const char* body :
         {"", "{not json", R"(["/k", 0, 10])", R"({"byte_size": 10})", R"({"key": 5, "byte_size": 10})",
          R"({"key": "/k"})", R"({"key": "/k", "byte_size": "10"})", R"({"key": "/k", "byte_size": 10.5})",
          R"({"key": "/k", "byte_size": -1})", R"({"key": "/k", "offset": -4096, "byte_size": 10})",
          R"({"key": "/k", "offset": "0", "byte_size": 10})"}) {
        try {
            register_request_from_rest("r", body);
            ADD_FAILURE() << "accepted " << body;
        } catch (const ServeError& e) {
            EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << body;
            EXPECT_THAT(e.what(), HasSubstr("region 'r'")) << body;
        }
    }

    EXPECT_EQ(json::parse(shared_memory_status_to_json({})), json::array());
    const json status = json::parse(
        shared_memory_status_to_json({{"a", "/ka", 0, 18}, {"b", "/kb", 4096, std::uint64_t{3} << 30}}));
    ASSERT_EQ(status.size(), 2u);
    EXPECT_EQ(status[0], json({{"name", "a"}, {"key", "/ka"}, {"offset", 0}, {"byte_size", 18}}));
    EXPECT_EQ(status[1]["name"], "b");
    EXPECT_EQ(status[1]["offset"], 4096);
    EXPECT_EQ(status[1]["byte_size"].get<std::uint64_t>(), std::uint64_t{3} << 30);
}

/// An infer body whose `image` input names a shared-memory region through `parameters`; extra_input and
/// extra_request: more members of the input and of the request.
std::string rest_shm_body(const std::string& datatype, const json& shape, json parameters,
                          const json& extra_input = json::object(),
                          const json& extra_request = json::object()) {
    json input = {
        {"name", "image"}, {"datatype", datatype}, {"shape", shape}, {"parameters", std::move(parameters)}};
    input.update(extra_input);
    json message = {{"id", "shm"}, {"inputs", json::array({input})}};
    message.update(extra_request);
    return message.dump();
}

json rest_shm_parameters(const std::string& region, std::int64_t offset, std::int64_t byte_size) {
    return {{"shared_memory_region", region},
            {"shared_memory_offset", offset},
            {"shared_memory_byte_size", byte_size}};
}

/// An object holding 18 pixels at 64 and the raw BYTES form of an 11-byte "file" at 128, registered
/// as region "images" from byte 32 on.
class RestSharedMemoryInputs : public ::testing::Test {
protected:
    RestSharedMemoryInputs() : object(256) {
        object.write(0, std::string(256, '\x55'));
        for (int i = 0; i < 18; ++i) pixels += static_cast<char>(200 - i);
        object.write(64, pixels);
        raw_file = join_raw_bytes({file});
        object.write(128, raw_file);
        regions.register_region("images", object.key(), 32, object.size() - 32);
    }

    const char* region_byte(std::int64_t offset) const {
        return regions.bytes("images", offset, 0, "test").bytes.data();
    }

    /// The kind and reason of the request's ServeError (InvalidArgument "" if accepted).
    std::pair<ErrorKind, std::string> refusal(const std::string& body,
                                              std::optional<std::string_view> json_length,
                                              const SharedMemoryRegions* with) const {
        try {
            request_from_rest("m", "", body, json_length, with);
        } catch (const ServeError& e) {
            return {e.kind(), e.what()};
        }
        ADD_FAILURE() << "accepted " << body;
        return {ErrorKind::InvalidArgument, ""};
    }

    std::string pixels;
    const std::string file = "\xff\xd8not-a-jpg";
    std::string raw_file;
    test_support::ShmObject object;
    SharedMemoryRegions regions{ClientSharedMemory::Allowed};
};

TEST_F(RestSharedMemoryInputs, BothFormsAreReadInPlaceFromTheRegion) {
    const RestInferRequest from_pixels =
        request_from_rest("m", "2", rest_shm_body("UINT8", {2, 3, 3}, rest_shm_parameters("images", 32, 18)),
                          std::nullopt, &regions);
    EXPECT_EQ(from_pixels.inference.model_version, "2");
    EXPECT_EQ(from_pixels.inference.id, "shm");
    const ImageInput& image = from_pixels.inference.image;
    EXPECT_EQ(image.form, ImageInput::Form::RgbPixels);
    EXPECT_EQ(image.height, 2);
    EXPECT_EQ(image.width, 3);
    EXPECT_EQ(image.bytes, pixels);
    EXPECT_EQ(image.bytes.data(), region_byte(32));  // no copy
    object.write(64, "\x07");
    EXPECT_EQ(image.bytes[0], '\x07');

    const RestInferRequest encoded = request_from_rest(
        "m", "",
        rest_shm_body("BYTES", {1},
                      rest_shm_parameters("images", 96, static_cast<std::int64_t>(raw_file.size()))),
        std::nullopt, &regions);
    EXPECT_EQ(encoded.inference.image.form, ImageInput::Form::Encoded);
    EXPECT_EQ(encoded.inference.image.bytes, file);
    EXPECT_EQ(encoded.inference.image.bytes.data(), region_byte(96 + 4));

    // shared_memory_offset defaults to 0; the request's other members are read as ever.
    regions.register_region("pixels", object.key(), 64, 18);
    const RestInferRequest with_parameters = request_from_rest(
        "m", "",
        rest_shm_body(
            "UINT8", {2, 3, 3}, {{"shared_memory_region", "pixels"}, {"shared_memory_byte_size", 18}},
            json::object(),
            {{"parameters", {{"thresh", 0.5}}},
             {"outputs", json::array({json{{"name", "scores"}, {"parameters", {{"binary_data", true}}}}})}}),
        std::nullopt, &regions);
    EXPECT_EQ(with_parameters.inference.image.bytes, object.bytes(64, 18));
    EXPECT_EQ(with_parameters.inference.thresh, 0.5f);
    EXPECT_EQ(with_parameters.binary_outputs, std::vector<std::string>{"scores"});
    // The binary extension's header with no binary input is fine when nothing follows the JSON.
    const std::string body = rest_shm_body("UINT8", {2, 3, 3}, rest_shm_parameters("images", 32, 18));
    EXPECT_EQ(request_from_rest("m", "", body, std::to_string(body.size()), &regions).inference.image.bytes,
              object.bytes(64, 18));
}

TEST_F(RestSharedMemoryInputs, EachWrongSharedMemoryInputIsRefusedWithItsKind) {
    const auto expect_refused = [&](const std::string& body, ErrorKind kind, const std::string& reason,
                                    std::optional<std::string_view> json_length = std::nullopt) {
        const auto [got, what] = refusal(body, json_length, &regions);
        EXPECT_EQ(got, kind) << body << ": " << what;
        EXPECT_THAT(what, HasSubstr(reason)) << body;
    };
    const json shape = {2, 3, 3};
    expect_refused(
        rest_shm_body("UINT8", shape, {{"shared_memory_region", "images"}, {"shared_memory_offset", 32}}),
        ErrorKind::InvalidArgument, "shared_memory_region without shared_memory_byte_size");
    expect_refused(
        rest_shm_body("UINT8", shape, {{"shared_memory_region", 7}, {"shared_memory_byte_size", 18}}),
        ErrorKind::InvalidArgument, "shared_memory_region must be a string");
    expect_refused(rest_shm_body("UINT8", shape,
                                 {{"shared_memory_region", "images"}, {"shared_memory_byte_size", "18"}}),
                   ErrorKind::InvalidArgument, "shared_memory_byte_size must be an integer");
    expect_refused(rest_shm_body("UINT8", shape,
                                 {{"shared_memory_region", "images"},
                                  {"shared_memory_offset", 32.5},
                                  {"shared_memory_byte_size", 18}}),
                   ErrorKind::InvalidArgument, "shared_memory_offset must be an integer");

    // A region and data: which one is the input is not for the server to guess.
    expect_refused(
        rest_shm_body("UINT8", shape, rest_shm_parameters("images", 32, 18), {{"data", json::array()}}),
        ErrorKind::InvalidArgument, "names a shared-memory region and also carries data");
    json with_binary = rest_shm_parameters("images", 32, 18);
    with_binary["binary_data_size"] = 18;
    const std::string header = rest_shm_body("UINT8", shape, with_binary);
    const std::string header_length = std::to_string(header.size());
    expect_refused(header + pixels, ErrorKind::InvalidArgument, "also carries data", header_length);
    const std::string plain = rest_shm_body("UINT8", shape, rest_shm_parameters("images", 32, 18));
    const std::string length = std::to_string(plain.size());
    expect_refused(plain + "xyz", ErrorKind::InvalidArgument, "3 bytes after the JSON that no input claims",
                   length);

    expect_refused(
        rest_shm_body(
            "UINT8", shape, rest_shm_parameters("images", 32, 18), json::object(),
            {{"outputs",
              json::array({json{{"name", "boxes"}, {"parameters", {{"shared_memory_region", "images"}}}}})}}),
        ErrorKind::InvalidArgument, "output 'boxes': outputs are not written to shared memory");

    expect_refused(rest_shm_body("UINT8", shape, rest_shm_parameters("nope", 0, 18)), ErrorKind::NotFound,
                   "no shared-memory region 'nope'");
    expect_refused(rest_shm_body("UINT8", shape, rest_shm_parameters("images", 32, 1000)),
                   ErrorKind::InvalidArgument, "outside region 'images'");
    expect_refused(rest_shm_body("UINT8", shape, rest_shm_parameters("images", -32, 18)),
                   ErrorKind::InvalidArgument, "outside region 'images'");
    expect_refused(rest_shm_body("UINT8", shape, rest_shm_parameters("images", 32, 17)),
                   ErrorKind::InvalidArgument, "17 bytes for shape [2, 3, 3], which needs 18");

    // The extension off: no registry at all (also request_from_rest's default), or one that refuses.
    const std::string good = rest_shm_body("UINT8", shape, rest_shm_parameters("images", 32, 18));
    EXPECT_EQ(refusal(good, std::nullopt, nullptr).first, ErrorKind::Forbidden);
    const SharedMemoryRegions refused(ClientSharedMemory::Refused);
    const auto [refused_kind, refused_reason] = refusal(good, std::nullopt, &refused);
    EXPECT_EQ(refused_kind, ErrorKind::Forbidden);
    EXPECT_THAT(refused_reason, HasSubstr("--allow-client-shm"));
    try {
        request_from_rest("m", "", good, std::nullopt);
        ADD_FAILURE() << "accepted without a registry";
    } catch (const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Forbidden);
    }
}

}  // namespace
}  // namespace fpgacnn::serve

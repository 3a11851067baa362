// The gRPC messages turned into InferenceRequests and back without a network: both input forms, raw
// and typed contents alike, the thresh / nms parameters in the forms clients send them, the
// requested outputs, every malformed request refused with InvalidArgument and a reason, the raw
// outputs, the call's deadline on the steady clock, and inputs read from system shared memory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "grpc_messages.hpp"
#include "grpc_test_support.hpp"
#include "shm_test_support.hpp"

namespace fpgacnn::serve {
namespace {

using ::testing::HasSubstr;
using namespace test_support;

inference::ModelInferRequest small_pixels() {
    inference::ModelInferRequest request;
    request.set_model_name("yolo-lite");
    request.set_id("p");
    auto* input = request.add_inputs();
    input->set_name("image");
    input->set_datatype("UINT8");
    for (const int dimension : {2, 3, 3}) input->add_shape(dimension);
    std::string pixels;
    for (int i = 0; i < 18; ++i) pixels += static_cast<char>(i * 14);
    request.add_raw_input_contents(pixels);
    return request;
}

/// The reason of the ServeError(InvalidArgument) the request is refused with ("" when accepted).
std::string refusal(inference::ModelInferRequest message) {
    try {
        request_from_grpc(message);
    } catch (const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
        return e.what();
    }
    return "";
}

TEST(GrpcMessages, BothInputFormsRawOrTypedGiveTheSameImage) {
    inference::ModelInferRequest pixels_message = small_pixels();
    const InferenceRequest pixels = request_from_grpc(pixels_message);
    EXPECT_EQ(pixels.model, "yolo-lite");
    EXPECT_EQ(pixels.id, "p");
    EXPECT_EQ(pixels.image.form, ImageInput::Form::RgbPixels);
    EXPECT_EQ(pixels.image.height, 2);
    EXPECT_EQ(pixels.image.width, 3);
    ASSERT_EQ(pixels.image.bytes.size(), 18u);
    EXPECT_EQ(static_cast<unsigned char>(pixels.image.bytes[17]), 17 * 14);
    // The pixels were taken over from the message, not copied: the request's buffer is the one the
    // detector reads.
    EXPECT_TRUE(pixels_message.raw_input_contents(0).empty());
    ASSERT_NE(pixels.image.storage, nullptr);
    EXPECT_EQ(pixels.image.bytes.data(), static_cast<const std::string*>(pixels.image.storage.get())->data());
    inference::ModelInferRequest typed_pixels_message = as_typed_contents(small_pixels());
    const InferenceRequest typed_pixels = request_from_grpc(typed_pixels_message);
    EXPECT_EQ(typed_pixels.image.bytes, pixels.image.bytes);
    EXPECT_EQ(typed_pixels.image.height, 2);

    const std::string dog = test::darknet_file("data/dog.jpg");
    inference::ModelInferRequest encoded_message = encoded_request(dog, "e");
    const InferenceRequest encoded = request_from_grpc(encoded_message);
    EXPECT_EQ(encoded.image.form, ImageInput::Form::Encoded);
    const std::string file = file_text(dog);
    EXPECT_EQ(encoded.image.bytes, file);
    inference::ModelInferRequest typed_message = as_typed_contents(encoded_request(dog, "e"));
    const InferenceRequest typed = request_from_grpc(typed_message);
    EXPECT_EQ(typed.image.bytes, encoded.image.bytes);
}

/// request_from_grpc of a copy: it takes the raw contents out of the message it is given.
InferenceRequest converted(inference::ModelInferRequest message) { return request_from_grpc(message); }

TEST(GrpcMessages, ParametersInEachNumberFormAndRequestedOutputs) {
    inference::ModelInferRequest message = small_pixels();
    (*message.mutable_parameters())["thresh"].set_double_param(0.125);
    (*message.mutable_parameters())["nms"].set_string_param("0.5");
    (*message.mutable_parameters())["priority"].set_int64_param(3);  // not fpgacnn's: ignored
    message.add_outputs()->set_name("scores");
    message.add_outputs()->set_name("labels");
    InferenceRequest request = converted(message);
    EXPECT_EQ(request.thresh, 0.125f);
    EXPECT_EQ(request.nms, 0.5f);
    EXPECT_EQ(request.requested_outputs, (std::vector<std::string>{"scores", "labels"}));
    EXPECT_FALSE(request.deadline.has_value());

    (*message.mutable_parameters())["thresh"].set_int64_param(1);
    EXPECT_EQ(converted(message).thresh, 1.0f);
    inference::ModelInferRequest plain_message = small_pixels();
    const InferenceRequest plain = request_from_grpc(plain_message);
    EXPECT_FALSE(plain.thresh.has_value());
    EXPECT_FALSE(plain.nms.has_value());
    EXPECT_TRUE(plain.requested_outputs.empty());

    (*message.mutable_parameters())["thresh"].set_bool_param(true);
    EXPECT_THAT(refusal(message), HasSubstr("parameter 'thresh' must be a number"));
    (*message.mutable_parameters())["thresh"].set_string_param("0.3x");
    EXPECT_THAT(refusal(message), HasSubstr("'0.3x'"));
    (*message.mutable_parameters())["thresh"].set_string_param("");
    EXPECT_THAT(refusal(message), HasSubstr("must be a number"));
}

TEST(GrpcMessages, MalformedRequestsAreRefusedWithAReason) {
    inference::ModelInferRequest none = small_pixels();
    none.clear_inputs();
    none.clear_raw_input_contents();
    EXPECT_THAT(refusal(none), HasSubstr("one input, 'image', but the request has 0"));

    inference::ModelInferRequest two = small_pixels();
    *two.add_inputs() = two.inputs(0);
    two.add_raw_input_contents(two.raw_input_contents(0));
    EXPECT_THAT(refusal(two), HasSubstr("has 2"));

    inference::ModelInferRequest extra_raw = small_pixels();
    extra_raw.add_raw_input_contents("x");
    EXPECT_THAT(refusal(extra_raw), HasSubstr("raw_input_contents has 2 entries for 1 input"));

    inference::ModelInferRequest both = small_pixels();
    both.mutable_inputs(0)->mutable_contents()->add_uint_contents(1);
    EXPECT_THAT(refusal(both), HasSubstr("both raw_input_contents and typed contents"));

    inference::ModelInferRequest wide = as_typed_contents(small_pixels());
    wide.mutable_inputs(0)->mutable_contents()->set_uint_contents(4, 256);
    EXPECT_THAT(refusal(wide), HasSubstr("UINT8 value 256"));

    inference::ModelInferRequest short_typed = as_typed_contents(small_pixels());
    short_typed.mutable_inputs(0)->mutable_contents()->mutable_uint_contents()->RemoveLast();
    EXPECT_THAT(refusal(short_typed), HasSubstr("17 bytes for shape [2, 3, 3], which needs 18"));

    inference::ModelInferRequest fp32 = small_pixels();
    fp32.mutable_inputs(0)->set_datatype("FP32");
    EXPECT_THAT(refusal(fp32), HasSubstr("datatype 'FP32' is not served"));

    inference::ModelInferRequest gray = small_pixels();
    gray.mutable_inputs(0)->set_shape(2, 1);
    EXPECT_THAT(refusal(gray), HasSubstr("UINT8 shape must be [H, W, 3]"));

    inference::ModelInferRequest named = small_pixels();
    named.mutable_inputs(0)->set_name("input_1");
    EXPECT_THAT(refusal(named), HasSubstr("unknown input 'input_1'"));

    inference::ModelInferRequest two_files = encoded_request(test::darknet_file("data/dog.jpg"), "b");
    two_files.mutable_inputs(0)->set_shape(0, 2);
    EXPECT_THAT(refusal(two_files), HasSubstr("BYTES shape must be [1]"));

    inference::ModelInferRequest cut = encoded_request(test::darknet_file("data/dog.jpg"), "c");
    cut.set_raw_input_contents(0, cut.raw_input_contents(0).substr(0, 2));
    EXPECT_THAT(refusal(cut), HasSubstr("4-byte length"));
}

TEST(GrpcMessages, ResponsesCarryEveryOutputRaw) {
    InferenceResponse response;
    response.model = "yolo-lite";
    response.model_version = "1";
    response.id = "r";
    response.boxes = {1, 2, 3, 4, 5.5f, 6, 7, 8};
    response.scores = {0.75f, 0.5f};
    response.classes = {11, 14};
    response.labels = {"dog", "person"};
    response.outputs = {"labels", "boxes", "scores", "classes"};
    inference::ModelInferResponse message;
    response_to_grpc(response, message);
    EXPECT_EQ(message.model_name(), "yolo-lite");
    EXPECT_EQ(message.model_version(), "1");
    EXPECT_EQ(message.id(), "r");
    ASSERT_EQ(message.outputs_size(), 4);
    ASSERT_EQ(message.raw_output_contents_size(), 4);
    EXPECT_EQ(message.outputs(0).name(), "labels");
    EXPECT_EQ(message.outputs(0).datatype(), "BYTES");
    EXPECT_EQ(message.outputs(1).datatype(), "FP32");
    EXPECT_EQ(std::vector<std::int64_t>(message.outputs(1).shape().begin(), message.outputs(1).shape().end()),
              (std::vector<std::int64_t>{2, 4}));
    EXPECT_EQ(message.outputs(3).datatype(), "INT32");
    EXPECT_FALSE(message.outputs(0).has_contents());
    EXPECT_TRUE(detections_of(message) == detections_of(response));
}

TEST(GrpcMessages, MetadataCarriesEveryField) {
    inference::ModelMetadataResponse model;
    metadata_to_grpc(
        ModelMetadata{"m", {"1"}, "fpgacnn_darknet", {{"image", "BYTES", {1}}}, {{"boxes", "FP32", {-1, 4}}}},
        model);
    EXPECT_EQ(model.name(), "m");
    EXPECT_EQ(model.versions(0), "1");
    EXPECT_EQ(model.platform(), "fpgacnn_darknet");
    EXPECT_EQ(model.inputs(0).name(), "image");
    EXPECT_EQ(model.outputs(0).shape(0), -1);
    EXPECT_EQ(model.outputs(0).shape(1), 4);
    inference::ServerMetadataResponse server;
    metadata_to_grpc(ServerMetadata{"fpgacnn", "0.1.0", {"binary_tensor_data"}}, server);
    EXPECT_EQ(server.name(), "fpgacnn");
    EXPECT_EQ(server.version(), "0.1.0");
    EXPECT_EQ(server.extensions(0), "binary_tensor_data");
}

TEST(GrpcMessages, TheCallsDeadlineOnTheSteadyClock) {
    using namespace std::chrono;
    const system_clock::time_point system_now = system_clock::now();
    const steady_clock::time_point steady_now = steady_clock::now();
    EXPECT_FALSE(steady_deadline(system_clock::time_point::max(), system_now, steady_now).has_value());
    EXPECT_FALSE(steady_deadline(system_now + hours(25), system_now, steady_now).has_value());
    EXPECT_EQ(steady_deadline(system_now + milliseconds(1500), system_now, steady_now),
              steady_now + milliseconds(1500));
    EXPECT_EQ(steady_deadline(system_now - seconds(2), system_now, steady_now), steady_now - seconds(2));
}

/// An `image` input naming a shared-memory region instead of carrying contents (the parameters as
/// Triton's clients send them: the region a string_param, offset and byte size int64_params).
inference::ModelInferRequest grpc_shm_request(const std::string& datatype,
                                              const std::vector<std::int64_t>& shape,
                                              const std::string& region, std::optional<std::int64_t> offset,
                                              std::optional<std::int64_t> byte_size) {
    inference::ModelInferRequest request;
    request.set_model_name("yolo-lite");
    request.set_id("shm");
    auto* input = request.add_inputs();
    input->set_name("image");
    input->set_datatype(datatype);
    for (const std::int64_t dimension : shape) input->add_shape(dimension);
    auto& parameters = *input->mutable_parameters();
    parameters[kSharedMemoryRegionParameter].set_string_param(region);
    if (offset) parameters[kSharedMemoryOffsetParameter].set_int64_param(*offset);
    if (byte_size) parameters[kSharedMemoryByteSizeParameter].set_int64_param(*byte_size);
    return request;
}

/// The kind and reason of the ServeError the request is refused with (InvalidArgument "" when accepted).
std::pair<ErrorKind, std::string> grpc_shm_refusal(inference::ModelInferRequest message,
                                                   const SharedMemoryRegions* regions) {
    try {
        request_from_grpc(message, regions);
    } catch (const ServeError& e) {
        return {e.kind(), e.what()};
    }
    ADD_FAILURE() << "request accepted";
    return {ErrorKind::InvalidArgument, ""};
}

/// An object holding, after 64 bytes of padding, small_pixels()'s 18 pixels and at 128 dog.jpg in
/// the BYTES raw form, registered as region "images" from byte 32 on.
class GrpcSharedMemoryInputs : public ::testing::Test {
protected:
    GrpcSharedMemoryInputs()
        : file(file_text(test::darknet_file("data/dog.jpg"))),
          raw_file(join_raw_bytes({file})),
          object(128 + raw_file.size()) {
        object.write(0, std::string(128, '\x55'));
        pixels = small_pixels().raw_input_contents(0);
        object.write(64, pixels);
        object.write(128, raw_file);
        regions.register_region("images", object.key(), 32, object.size() - 32);
    }

    /// Where the registry's mapping of region "images" shows byte `offset` of the region.
    const char* region_byte(std::int64_t offset) const {
        return regions.bytes("images", offset, 0, "test").bytes.data();
    }

    std::string file;
    std::string raw_file;
    std::string pixels;
    test_support::ShmObject object;
    SharedMemoryRegions regions{ClientSharedMemory::Allowed};
};

TEST_F(GrpcSharedMemoryInputs, BothFormsAreReadInPlaceFromTheRegion) {
    inference::ModelInferRequest pixels_message = grpc_shm_request("UINT8", {2, 3, 3}, "images", 32, 18);
    const InferenceRequest from_pixels = request_from_grpc(pixels_message, &regions);
    EXPECT_EQ(from_pixels.id, "shm");
    EXPECT_EQ(from_pixels.image.form, ImageInput::Form::RgbPixels);
    EXPECT_EQ(from_pixels.image.height, 2);
    EXPECT_EQ(from_pixels.image.width, 3);
    EXPECT_EQ(from_pixels.image.bytes, pixels);
    // No copy: the detector reads the region's mapping, which the request keeps alive.
    EXPECT_EQ(from_pixels.image.bytes.data(), region_byte(32));
    EXPECT_NE(from_pixels.image.storage, nullptr);
    object.write(64, "\x01");
    EXPECT_EQ(from_pixels.image.bytes[0], '\x01');

    inference::ModelInferRequest encoded_message =
        grpc_shm_request("BYTES", {1}, "images", 96, static_cast<std::int64_t>(raw_file.size()));
    const InferenceRequest encoded = request_from_grpc(encoded_message, &regions);
    EXPECT_EQ(encoded.image.form, ImageInput::Form::Encoded);
    EXPECT_EQ(encoded.image.bytes, file);
    EXPECT_EQ(encoded.image.bytes.data(), region_byte(96 + 4));  // the file after its 4-byte length

    // Without shared_memory_offset the input starts at the region's first byte.
    regions.register_region("pixels", object.key(), 64, 18);
    inference::ModelInferRequest from_start =
        grpc_shm_request("UINT8", {2, 3, 3}, "pixels", std::nullopt, 18);
    EXPECT_EQ(request_from_grpc(from_start, &regions).image.bytes, object.bytes(64, 18));

    // The region stays mapped for a request made before it was unregistered.
    regions.unregister("");
    EXPECT_EQ(encoded.image.bytes, file);
}

TEST_F(GrpcSharedMemoryInputs, EachWrongSharedMemoryInputIsRefusedWithItsKind) {
    const auto expect_refused = [&](const inference::ModelInferRequest& message, ErrorKind kind,
                                    const std::string& reason, const SharedMemoryRegions* with = nullptr) {
        const auto [got, what] = grpc_shm_refusal(message, with ? with : &regions);
        EXPECT_EQ(got, kind) << what;
        EXPECT_THAT(what, HasSubstr(reason));
    };
    const inference::ModelInferRequest good = grpc_shm_request("UINT8", {2, 3, 3}, "images", 32, 18);

    expect_refused(grpc_shm_request("UINT8", {2, 3, 3}, "images", 32, std::nullopt),
                   ErrorKind::InvalidArgument, "shared_memory_region without shared_memory_byte_size");
    inference::ModelInferRequest region_number = good;
    (*region_number.mutable_inputs(0)->mutable_parameters())[kSharedMemoryRegionParameter].set_int64_param(1);
    expect_refused(region_number, ErrorKind::InvalidArgument, "shared_memory_region must be a string_param");
    inference::ModelInferRequest size_text = good;
    (*size_text.mutable_inputs(0)->mutable_parameters())[kSharedMemoryByteSizeParameter].set_string_param(
        "18");
    expect_refused(size_text, ErrorKind::InvalidArgument, "shared_memory_byte_size must be an int64_param");
    inference::ModelInferRequest offset_double = good;
    (*offset_double.mutable_inputs(0)->mutable_parameters())[kSharedMemoryOffsetParameter].set_double_param(
        32);
    expect_refused(offset_double, ErrorKind::InvalidArgument, "shared_memory_offset must be an int64_param");

    // A region and contents: which one is the input is not for the server to guess.
    inference::ModelInferRequest with_raw = good;
    with_raw.add_raw_input_contents(pixels);
    expect_refused(with_raw, ErrorKind::InvalidArgument,
                   "names a shared-memory region and also carries contents");
    inference::ModelInferRequest with_typed = good;
    with_typed.mutable_inputs(0)->mutable_contents()->add_uint_contents(1);
    expect_refused(with_typed, ErrorKind::InvalidArgument, "also carries contents");

    inference::ModelInferRequest output_in_shm = good;
    auto* output = output_in_shm.add_outputs();
    output->set_name("boxes");
    (*output->mutable_parameters())[kSharedMemoryRegionParameter].set_string_param("images");
    expect_refused(output_in_shm, ErrorKind::InvalidArgument,
                   "output 'boxes': outputs are not written to shared memory");

    expect_refused(grpc_shm_request("UINT8", {2, 3, 3}, "nope", 0, 18), ErrorKind::NotFound,
                   "no shared-memory region 'nope'");
    expect_refused(grpc_shm_request("UINT8", {2, 3, 3}, "images", 32, object.size()),
                   ErrorKind::InvalidArgument, "outside region 'images'");
    expect_refused(grpc_shm_request("UINT8", {2, 3, 3}, "images", -1, 18), ErrorKind::InvalidArgument,
                   "outside region 'images'");
    // The bytes must still fit the shape, as contents must.
    expect_refused(grpc_shm_request("UINT8", {2, 3, 3}, "images", 32, 17), ErrorKind::InvalidArgument,
                   "17 bytes for shape [2, 3, 3], which needs 18");

    // The extension off: no registry at all, or one that refuses.
    const auto [off_kind, off_reason] = grpc_shm_refusal(good, nullptr);
    EXPECT_EQ(off_kind, ErrorKind::Forbidden);
    EXPECT_THAT(off_reason, HasSubstr("--allow-client-shm"));
    const SharedMemoryRegions refused(ClientSharedMemory::Refused);
    expect_refused(good, ErrorKind::Forbidden, "--allow-client-shm", &refused);
    // request_from_grpc's default: no registry.
    inference::ModelInferRequest defaulted = good;
    try {
        request_from_grpc(defaulted);
        ADD_FAILURE() << "accepted without a registry";
    } catch (const ServeError& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Forbidden);
    }
    // A request without the parameters needs no registry.
    inference::ModelInferRequest inline_pixels = small_pixels();
    EXPECT_EQ(request_from_grpc(inline_pixels, nullptr).image.bytes, pixels);
}

}  // namespace
}  // namespace fpgacnn::serve

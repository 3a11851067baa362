// The protocol's tensors of fpgacnn's models: the raw BYTES encoding both ways, the `image` input's
// two forms and every way a request can describe it wrongly, the `timeout` parameter, and the
// outputs' datatypes, shapes and little-endian bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "protocol_tensors.hpp"
#include "serve_error_of.hpp"

namespace fpgacnn::serve {
namespace {

using test_support::serve_error_of;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ProtocolTensors, RawBytesRoundTripAndLengthsAreLittleEndian) {
    const std::string raw = join_raw_bytes({"ab", "", std::string(300, 'x')});
    ASSERT_EQ(raw.size(), 4 + 2 + 4 + 0 + 4 + 300u);
    EXPECT_EQ(raw.substr(0, 4), std::string("\x02\x00\x00\x00", 4));
    EXPECT_EQ(raw.substr(10, 4), std::string("\x2c\x01\x00\x00", 4));  // 300 = 0x012c
    const std::vector<std::string_view> elements = split_raw_bytes(raw, "t");
    ASSERT_EQ(elements.size(), 3u);
    EXPECT_EQ(elements[0], "ab");
    EXPECT_EQ(elements[1], "");
    EXPECT_EQ(elements[2], std::string(300, 'x'));
    EXPECT_TRUE(split_raw_bytes("", "t").empty());
}

TEST(ProtocolTensors, TruncatedRawBytesAreRefusedNamingTheTensor) {
    const std::string raw = join_raw_bytes({"abcdef"});
    EXPECT_THAT(serve_error_of([&] { split_raw_bytes(raw.substr(0, 7), "input 'image'"); }).what(),
                HasSubstr("input 'image': raw BYTES element 0 says 6 bytes but only 3 follow"));
    EXPECT_THAT(serve_error_of([&] { split_raw_bytes(raw + "\x01\x00", "input 'image'"); }).what(),
                HasSubstr("ends inside an element's 4-byte length"));
}

TEST(ProtocolTensors, EncodedImageIsOneBytesElement) {
    const ImageInput input = image_from_tensor("r1", "image", "BYTES", {1}, join_raw_bytes({"\xff\xd8jpeg"}));
    EXPECT_EQ(input.form, ImageInput::Form::Encoded);
    EXPECT_EQ(std::string(input.bytes.begin(), input.bytes.end()), "\xff\xd8jpeg");
}

TEST(ProtocolTensors, PixelImageKeepsItsShape) {
    const std::string pixels(2 * 5 * 3, '\x7f');
    const ImageInput input = image_from_tensor("r1", "image", "UINT8", {2, 5, 3}, pixels);
    EXPECT_EQ(input.form, ImageInput::Form::RgbPixels);
    EXPECT_EQ(input.height, 2);
    EXPECT_EQ(input.width, 5);
    EXPECT_EQ(input.bytes.size(), 30u);
}

TEST(ProtocolTensors, EveryWrongImageDescriptionIsAnInvalidArgumentNamingTheRequest) {
    const std::string one = join_raw_bytes({"x"});
    const std::vector<std::pair<ServeError, std::string>> cases = {
        {serve_error_of([&] { image_from_tensor("r7", "picture", "BYTES", {1}, one); }),
         "unknown input 'picture'"},
        {serve_error_of([&] { image_from_tensor("r7", "image", "FP32", {1}, one); }),
         "datatype 'FP32' is not served"},
        {serve_error_of([&] { image_from_tensor("r7", "image", "BYTES", {2}, one); }),
         "BYTES shape must be [1]"},
        {serve_error_of([&] { image_from_tensor("r7", "image", "BYTES", {1}, one + one); }),
         "the data holds 2 elements"},
        {serve_error_of([&] { image_from_tensor("r7", "image", "BYTES", {1}, join_raw_bytes({""})); }),
         "the encoded image is empty"},
        {serve_error_of([&] {
             image_from_tensor("r7", "image", "UINT8", {2, 2}, "abcd");
         }),
         "got [2, 2]"},
        {serve_error_of([&] {
             image_from_tensor("r7", "image", "UINT8", {2, 2, 4}, std::string(16, 'a'));
         }),
         "must be [H, W, 3]"},
        {serve_error_of([&] {
             image_from_tensor("r7", "image", "UINT8", {0, 2, 3}, "");
         }),
         "sides in [1, 8192]"},
        {serve_error_of([&] {
             image_from_tensor("r7", "image", "UINT8", {9000, 2, 3}, "");
         }),
         "got [9000, 2, 3]"},
        {serve_error_of([&] {
             image_from_tensor("r7", "image", "UINT8", {2, 2, 3}, std::string(11, 'a'));
         }),
         "11 bytes for shape [2, 2, 3], which needs 12"},
    };
    for (const auto& [error, reason] : cases) {
        EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument) << error.what();
        EXPECT_THAT(error.what(), HasSubstr("request 'r7'"));
        EXPECT_THAT(error.what(), HasSubstr(reason));
    }
}

TEST(ProtocolTensors, TimeoutMustBeAPositiveFiniteNumberOfSeconds) {
    const auto before = std::chrono::steady_clock::now();
    const auto deadline = deadline_after_seconds(2.5);
    EXPECT_GE(deadline - before, std::chrono::milliseconds(2500));
    EXPECT_LT(deadline - before, std::chrono::seconds(60));
    for (const double bad : {0.0, -1.0, 1e9, std::numeric_limits<double>::quiet_NaN(),
                             std::numeric_limits<double>::infinity()}) {
        const ServeError error = serve_error_of([&] { deadline_after_seconds(bad); });
        EXPECT_EQ(error.kind(), ErrorKind::InvalidArgument);
        EXPECT_THAT(error.what(), HasSubstr("parameter 'timeout'"));
    }
}

TEST(ProtocolTensors, OutputsCarryTheirDatatypeShapeAndLittleEndianBytes) {
    InferenceResponse response;
    response.boxes = {1.5f, 2, 3, 4, 5, 6, 7, 8};
    response.scores = {0.9f, 0.25f};
    response.classes = {3, -1};
    response.labels = {"dog", "bicycle"};
    response.outputs = {"labels", "boxes", "classes", "scores"};
    const std::vector<OutputTensor> tensors = output_tensors(response);
    ASSERT_EQ(tensors.size(), 4u);
    EXPECT_EQ(tensors[0].name, "labels");
    EXPECT_EQ(tensors[0].datatype, "BYTES");
    EXPECT_THAT(tensors[0].shape, ElementsAre(2));
    EXPECT_EQ(tensors[0].raw, join_raw_bytes({"dog", "bicycle"}));
    EXPECT_EQ(tensors[1].datatype, "FP32");
    EXPECT_THAT(tensors[1].shape, ElementsAre(2, 4));
    ASSERT_EQ(tensors[1].raw.size(), 32u);
    EXPECT_EQ(tensors[1].raw.substr(0, 4), std::string("\x00\x00\xc0\x3f", 4));  // 1.5f
    EXPECT_EQ(tensors[2].datatype, "INT32");
    EXPECT_EQ(tensors[2].raw.substr(4, 4), std::string("\xff\xff\xff\xff", 4));  // -1
    EXPECT_EQ(tensors[3].datatype, "FP32");
    float second = 0;
    std::memcpy(&second, tensors[3].raw.data() + 4, 4);
    EXPECT_EQ(second, 0.25f);
}

TEST(ProtocolTensors, NoDetectionsAreEmptyTensorsOfShapeZero) {
    InferenceResponse response;
    response.outputs = output_names();
    const std::vector<OutputTensor> tensors = output_tensors(response);
    ASSERT_EQ(tensors.size(), 4u);
    EXPECT_THAT(tensors[0].shape, ElementsAre(0, 4));
    for (const OutputTensor& tensor : tensors) EXPECT_TRUE(tensor.raw.empty()) << tensor.name;
}

}  // namespace
}  // namespace fpgacnn::serve

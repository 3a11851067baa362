#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(InputSize, ParsesWidthByHeight) {
    const InputSizeOverride size = parse_input_size("416x320");
    EXPECT_EQ(size.width, 416);
    EXPECT_EQ(size.height, 320);
    EXPECT_EQ(parse_input_size("608X608").width, 608);
}

TEST(InputSize, RejectsAnythingElse) {
    for (const char* text : {"", "416", "416x", "x416", "0x416", "416x0", "-32x32", "416x416x3", "abc",
                             "416 x 416", "4.5x4", "99999999x32", "+32x32"}) {
        SCOPED_TRACE(text);
        EXPECT_THAT(test::error_message([&] { parse_input_size(text); }),
                    AllOf(HasSubstr("'" + std::string(text) + "'"), HasSubstr("like 416x416")));
    }
}

}  // namespace
}  // namespace fpgacnn

// Shapes and counts computed from a cfg are capped before any arithmetic can overflow: a route that
// concatenates more channels than int holds (UBSan found route_reorg_builders.cpp:53 overflowing),
// a reorg or conv that explodes the channel or weight count, an input too large to index.
#include "fpgacnn/darknet.hpp"
#include "model_test_helpers.hpp"

namespace fpgacnn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// [net] 1x1 input, then `convs` 1x1 convolutions of `filters` filters, then `tail`.
std::string wide_cfg(int side, int convs, int filters, const std::string& tail) {
    std::string text =
        "[net]\nwidth=" + std::to_string(side) + "\nheight=" + std::to_string(side) + "\nchannels=3\n";
    for (int i = 0; i < convs; ++i) {
        text += "[convolutional]\nfilters=" + std::to_string(filters) + "\nsize=1\nactivation=linear\n";
    }
    return text + tail;
}

class CfgLimits : public ::testing::Test {
protected:
    std::string dir = test::scratch_dir(std::string("cfg_limits_") +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::string load_error(const std::string& text) {
        const std::string path = test::write_text_file(dir, "limits.cfg", text);
        return test::error_message([&] { load_darknet_cfg(path); });
    }
};

TEST_F(CfgLimits, ARouteWhoseChannelSumWouldOverflowIntIsRefused) {
    // 32768 routed inputs of 65536 channels: 2^31, one past INT_MAX (the UBSan case added 65536 to
    // 2147418112). The sum is refused as soon as it passes the limit, naming the route's line.
    std::string layers = "-1";
    for (int i = 0; i < 32767; ++i) layers += ",-1";
    const std::string message = load_error(wide_cfg(1, 1, 65536, "[route]\nlayers=" + layers + "\n"));
    EXPECT_THAT(message, AllOf(HasSubstr("limits.cfg:10: [route] layer 1"), HasSubstr("more than 65536"),
                               HasSubstr("channels")));
}

TEST_F(CfgLimits, ARouteAboveTheChannelLimitIsRefused) {
    const std::string message = load_error(wide_cfg(1, 2, 40000, "[route]\nlayers=-1,-2\n"));
    EXPECT_THAT(message, AllOf(HasSubstr("[route] layer 2"), HasSubstr("80000 after layer 0")));
}

TEST_F(CfgLimits, AReorgAboveTheChannelLimitIsRefused) {
    const std::string message = load_error(wide_cfg(64, 1, 4096, "[reorg]\nstride=8\n"));
    EXPECT_THAT(message, AllOf(HasSubstr("[reorg] layer 1"), HasSubstr("262144 channels"),
                               HasSubstr("limit of 65536")));
}

TEST_F(CfgLimits, AConvWithMoreThan2To31WeightsIsRefused) {
    // 65536 filters over 65536 channels with 3x3 kernels: 38.6 billion weights.
    const std::string text =
        wide_cfg(3, 1, 65536, "") + "[convolutional]\nfilters=65536\nsize=3\npad=1\nactivation=linear\n";
    EXPECT_THAT(load_error(text), AllOf(HasSubstr("[convolutional] layer 1"),
                                        HasSubstr("38654705664 weights"), HasSubstr("limit of 2147483647")));
}

TEST_F(CfgLimits, AnInputTooLargeToIndexIsRefused) {
    std::string text = wide_cfg(32768, 1, 16, "");
    text.replace(text.find("channels=3"), 10, "channels=4");
    EXPECT_THAT(load_error(text), AllOf(HasSubstr("[net]"), HasSubstr("32768x32768x4"),
                                        HasSubstr("4294967296 values"), HasSubstr("--input")));
}

}  // namespace
}  // namespace fpgacnn

// letterbox_rgb: the same network input, bit for bit, as converting the pixels with image_from_rgb
// and letterboxing the float image (which resize_letterbox_test checks against darknet's formulas),
// for downscales, upscales and the one-pixel sides darknet special-cases.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {
namespace {

RgbPixels random_pixels(int width, int height, unsigned seed) {
    RgbPixels pixels;
    pixels.width = width;
    pixels.height = height;
    pixels.data.resize(static_cast<std::size_t>(width) * height * 3);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> byte(0, 255);
    for (std::uint8_t& v : pixels.data) v = static_cast<std::uint8_t>(byte(rng));
    return pixels;
}

struct Case {
    int width, height, net_w, net_h;
};

class LetterboxRgbMatchesFloatPath : public testing::TestWithParam<Case> {};

TEST_P(LetterboxRgbMatchesFloatPath, BitForBit) {
    const Case c = GetParam();
    const RgbPixels pixels = random_pixels(c.width, c.height, static_cast<unsigned>(c.width * 31 + c.height));
    const Image expected =
        letterbox_image(image_from_rgb(pixels.data.data(), pixels.width, pixels.height), c.net_w, c.net_h);
    const Image actual = letterbox_rgb(pixels, c.net_w, c.net_h);
    ASSERT_EQ(actual.w, expected.w);
    ASSERT_EQ(actual.h, expected.h);
    ASSERT_EQ(actual.c, expected.c);
    ASSERT_EQ(actual.data.size(), expected.data.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < expected.data.size(); ++i)
        differing += std::memcmp(&expected.data[i], &actual.data[i], sizeof(float)) != 0 ? 1 : 0;
    EXPECT_EQ(differing, 0u) << "of " << expected.data.size() << " values";
}

INSTANTIATE_TEST_SUITE_P(Sizes, LetterboxRgbMatchesFloatPath,
                         testing::Values(Case{768, 576, 224, 224},  // dog.jpg into YOLO-LITE
                                         Case{768, 576, 416, 416},  // dog.jpg into YOLOv2
                                         Case{480, 640, 416, 416},  // portrait
                                         Case{100, 37, 416, 416},   // upscale
                                         Case{1, 50, 32, 32},       // one-pixel width
                                         Case{50, 1, 32, 32},       // one-pixel height
                                         Case{1, 1, 8, 8},          // one pixel
                                         Case{333, 333, 224, 160},  // non-square network
                                         Case{7, 5, 7, 5}),         // same size
                         [](const testing::TestParamInfo<Case>& case_info) {
                             const Case& c = case_info.param;
                             return std::to_string(c.width) + "x" + std::to_string(c.height) + "_into_" +
                                    std::to_string(c.net_w) + "x" + std::to_string(c.net_h);
                         });

// A BGR view (RgbPixelsView::bgr, what the Python package passes for a cv2 frame) reads the same
// values as the RGB bytes with each pixel's first and last byte swapped.
TEST(LetterboxRgb, BgrViewMatchesSwappedRgb) {
    const RgbPixels rgb = random_pixels(97, 61, 5);
    std::vector<std::uint8_t> bgr = rgb.data;
    for (std::size_t i = 0; i < bgr.size(); i += 3) std::swap(bgr[i], bgr[i + 2]);
    RgbPixelsView view(bgr.data(), bgr.size(), rgb.width, rgb.height);
    view.bgr = true;
    const Image expected = letterbox_rgb(rgb, 64, 48);
    const Image actual = letterbox_rgb(view, 64, 48);
    ASSERT_EQ(actual.data.size(), expected.data.size());
    EXPECT_EQ(std::memcmp(actual.data.data(), expected.data.data(), expected.data.size() * sizeof(float)), 0);
    view.bgr = false;  // and the flag matters: read as RGB, red and blue trade places
    EXPECT_NE(std::memcmp(letterbox_rgb(view, 64, 48).data.data(), expected.data.data(),
                          expected.data.size() * sizeof(float)),
              0);
}

TEST(LetterboxRgb, RejectsEmptyOrShortPixels) {
    EXPECT_THROW(letterbox_rgb(RgbPixels{}, 416, 416), Error);
    RgbPixels short_data = random_pixels(4, 4, 1);
    short_data.data.pop_back();
    try {
        letterbox_rgb(short_data, 416, 416);
        FAIL() << "a 47-byte buffer for 4x4 pixels was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("48 bytes"), std::string::npos) << e.what();
    }
    EXPECT_THROW(letterbox_rgb(random_pixels(4, 4, 1), 0, 416), Error);
}

}  // namespace
}  // namespace fpgacnn

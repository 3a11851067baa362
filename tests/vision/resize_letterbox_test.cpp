// resize_image and letterbox_image against darknet's formulas, re-implemented here the way
// darknet's image.c writes them (get_pixel / set_pixel / add_pixel over the whole image).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {
namespace {

Image make_test_image(int w, int h, int c, unsigned seed) {
    Image image;
    image.w = w;
    image.h = h;
    image.c = c;
    image.data.resize(static_cast<std::size_t>(w) * h * c);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> value(0.0f, 1.0f);
    for (float& v : image.data) v = value(rng);
    return image;
}

float& pixel(Image& m, int x, int y, int c) {
    return m.data[(static_cast<std::size_t>(c) * m.h + y) * m.w + x];
}

// darknet's resize_image as written in image.c (valid for w, h >= 2).
Image darknet_resize(const Image& im, int w, int h) {
    Image resized = make_test_image(w, h, im.c, 0);
    Image part = make_test_image(w, im.h, im.c, 0);
    const float w_scale = static_cast<float>(im.w - 1) / (w - 1);
    const float h_scale = static_cast<float>(im.h - 1) / (h - 1);
    for (int k = 0; k < im.c; ++k) {
        for (int r = 0; r < im.h; ++r) {
            for (int c = 0; c < w; ++c) {
                float val = 0;
                if (c == w - 1 || im.w == 1) {
                    val = im.at(im.w - 1, r, k);
                } else {
                    float sx = c * w_scale;
                    int ix = static_cast<int>(sx);
                    float dx = sx - ix;
                    val = (1 - dx) * im.at(ix, r, k) + dx * im.at(ix + 1, r, k);
                }
                pixel(part, c, r, k) = val;
            }
        }
    }
    for (int k = 0; k < im.c; ++k) {
        for (int r = 0; r < h; ++r) {
            float sy = r * h_scale;
            int iy = static_cast<int>(sy);
            float dy = sy - iy;
            for (int c = 0; c < w; ++c) pixel(resized, c, r, k) = (1 - dy) * part.at(c, iy, k);
            if (r == h - 1 || im.h == 1) continue;
            for (int c = 0; c < w; ++c) pixel(resized, c, r, k) += dy * part.at(c, iy + 1, k);
        }
    }
    return resized;
}

void expect_bit_identical(const Image& expected, const Image& actual) {
    ASSERT_EQ(expected.w, actual.w);
    ASSERT_EQ(expected.h, actual.h);
    ASSERT_EQ(expected.c, actual.c);
    ASSERT_EQ(expected.data.size(), actual.data.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < expected.data.size(); ++i) {
        if (std::memcmp(&expected.data[i], &actual.data[i], sizeof(float)) != 0) ++differing;
    }
    EXPECT_EQ(differing, 0u) << "of " << expected.data.size() << " values";
}

TEST(ResizeImage, TwoByTwoToThreeByThreeByHand) {
    Image im;
    im.w = 2;
    im.h = 2;
    im.c = 1;
    im.data = {0, 1, 2, 3};
    const Image out = resize_image(im, 3, 3);
    const std::vector<float> expected = {0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3};
    EXPECT_EQ(out.data, expected);
}

TEST(ResizeImage, SameSizeIsIdentity) {
    const Image im = make_test_image(7, 5, 3, 1);
    EXPECT_EQ(resize_image(im, 7, 5).data, im.data);
}

TEST(ResizeImage, MatchesDarknetFormulaBitForBit) {
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> size(2, 40);
    for (int trial = 0; trial < 100; ++trial) {
        const Image im = make_test_image(size(rng), size(rng), 3, static_cast<unsigned>(trial));
        const int w = size(rng);
        const int h = size(rng);
        SCOPED_TRACE(::testing::Message() << im.w << "x" << im.h << " -> " << w << "x" << h);
        expect_bit_identical(darknet_resize(im, w, h), resize_image(im, w, h));
    }
}

TEST(ResizeImage, DogSizedDownscaleMatchesDarknetFormula) {
    const Image im = make_test_image(768, 576, 3, 3);
    expect_bit_identical(darknet_resize(im, 416, 312), resize_image(im, 416, 312));
}

TEST(ResizeImage, LastColumnCopiesLastPixel) {
    const Image im = make_test_image(9, 4, 1, 5);
    const Image out = resize_image(im, 5, 4);
    for (int y = 0; y < 4; ++y) EXPECT_EQ(out.at(4, y, 0), im.at(8, y, 0));
}

TEST(ResizeImage, OnePixelSidesAreHandled) {
    const Image im = make_test_image(6, 6, 2, 9);
    const Image column = resize_image(im, 1, 6);
    for (int y = 0; y < 6; ++y) EXPECT_EQ(column.at(0, y, 1), im.at(5, y, 1));
    const Image row = resize_image(im, 6, 1);
    for (int x = 0; x < 6; ++x) EXPECT_EQ(row.at(x, 0, 0), im.at(x, 0, 0));
}

TEST(ResizeImage, RejectsBadSizes) {
    const Image im = make_test_image(4, 4, 3, 2);
    EXPECT_THROW(resize_image(im, 0, 4), Error);
    EXPECT_THROW(resize_image(im, 4, -1), Error);
    EXPECT_THROW(resize_image(Image{}, 4, 4), Error);
    Image inconsistent = im;
    inconsistent.data.pop_back();
    EXPECT_THROW(resize_image(inconsistent, 4, 4), Error);
}

TEST(LetterboxImage, WideImageIsCentredVerticallyWithGreyBars) {
    const Image im = make_test_image(4, 2, 3, 11);
    const Image boxed = letterbox_image(im, 8, 8);
    ASSERT_EQ(boxed.w, 8);
    ASSERT_EQ(boxed.h, 8);
    ASSERT_EQ(boxed.c, 3);
    // 8/4 < 8/2: scaled to 8 x (2*8/4 = 4), placed at y = (8-4)/2 = 2.
    const Image inner = resize_image(im, 8, 4);
    for (int k = 0; k < 3; ++k) {
        for (int y = 0; y < 8; ++y) {
            for (int x = 0; x < 8; ++x) {
                const bool inside = y >= 2 && y < 6;
                const float expected = inside ? inner.at(x, y - 2, k) : 0.5f;
                EXPECT_EQ(boxed.at(x, y, k), expected) << "x=" << x << " y=" << y << " c=" << k;
            }
        }
    }
}

TEST(LetterboxImage, TallImageIsCentredHorizontally) {
    const Image im = make_test_image(3, 10, 1, 12);
    const Image boxed = letterbox_image(im, 10, 10);
    // 10/3 >= 10/10: scaled to (3*10/10 = 3) x 10, placed at x = (10-3)/2 = 3.
    const Image inner = resize_image(im, 3, 10);
    for (int y = 0; y < 10; ++y) {
        for (int x = 0; x < 10; ++x) {
            const bool inside = x >= 3 && x < 6;
            EXPECT_EQ(boxed.at(x, y, 0), inside ? inner.at(x - 3, y, 0) : 0.5f) << "x=" << x << " y=" << y;
        }
    }
}

TEST(LetterboxImage, DogSizedImageInto416) {
    const Image im = make_test_image(768, 576, 3, 13);
    const Image boxed = letterbox_image(im, 416, 416);
    const Image inner = darknet_resize(im, 416, 312);  // 576*416/768 = 312, offset (416-312)/2 = 52
    for (int k = 0; k < 3; ++k) {
        for (int x = 0; x < 416; x += 37) {
            EXPECT_EQ(boxed.at(x, 51, k), 0.5f);
            EXPECT_EQ(boxed.at(x, 52, k), inner.at(x, 0, k));
            EXPECT_EQ(boxed.at(x, 363, k), inner.at(x, 311, k));
            EXPECT_EQ(boxed.at(x, 364, k), 0.5f);
        }
    }
}

TEST(LetterboxImage, RejectsBadInput) {
    EXPECT_THROW(letterbox_image(Image{}, 416, 416), Error);
    EXPECT_THROW(letterbox_image(make_test_image(4, 4, 3, 1), 0, 416), Error);
}

}  // namespace
}  // namespace fpgacnn

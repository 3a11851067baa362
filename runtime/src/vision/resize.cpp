// darknet's resize_image, operation for operation: the results must be bit-identical to darknet's
// because the network input (and so every detection) depends on them.
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "vision/image_checks.hpp"
#include "vision/resize_rgb.hpp"
#include "vision/unit_values.hpp"

namespace fpgacnn {

namespace {

Image make_image(int w, int h, int c) {
    Image image;
    image.w = w;
    image.h = h;
    image.c = c;
    image.data.assign(static_cast<std::size_t>(w) * h * c, 0.0f);
    return image;
}

float* row_of(Image& image, int channel, int y) {
    return &image.data[(static_cast<std::size_t>(channel) * image.h + y) * image.w];
}

const float* row_of(const Image& image, int channel, int y) {
    return &image.data[(static_cast<std::size_t>(channel) * image.h + y) * image.w];
}

// Corner-aligned scale: output pixel 0 maps to input 0 and the last to the last. darknet divides
// by zero for a 1-pixel output side (and then never uses the result, or crashes); 0 is harmless.
float corner_aligned_scale(int in_size, int out_size) {
    if (out_size <= 1) return 0.0f;
    return static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1);
}

// An Image's channel-k row r as the horizontal pass reads it.
struct FloatRow {
    const float* values;
    float operator[](int x) const { return values[x]; }
};

// An RGB frame's channel-k row r, converted where it is read, as image_from_rgb converts it: the
// pass reads the same floats without the 12-bytes-a-pixel Image (and a downscale reads only the
// pixels it interpolates).
struct RgbRow {
    const std::uint8_t* bytes;  // the row's first pixel's channel-k byte
    const std::array<float, 256>* unit;
    float operator[](int x) const { return (*unit)[bytes[3 * x]]; }
};

// Horizontal pass: each source row is interpolated to width w. The last column copies the last
// input pixel instead of interpolating (darknet's special case). Where each output column reads
// depends only on the column, so it is worked out once, with darknet's expressions.
template <typename RowAt>
void resize_rows(int in_w, int in_h, int channels, const RowAt& row_at, Image& part) {
    const int w = part.w;
    const float w_scale = corner_aligned_scale(in_w, w);
    const int interpolated = in_w == 1 ? 0 : w - 1;
    std::vector<int> left(static_cast<std::size_t>(interpolated));
    std::vector<float> left_weight(left.size());
    std::vector<float> right_weight(left.size());
    for (int c = 0; c < interpolated; ++c) {
        const float sx = static_cast<float>(c) * w_scale;
        // float -> int truncation as darknet's (int) cast; the min only guards memory safety.
        const int ix = std::min(static_cast<int>(sx), in_w - 2);
        const float dx = sx - static_cast<float>(ix);
        left[static_cast<std::size_t>(c)] = ix;
        left_weight[static_cast<std::size_t>(c)] = 1 - dx;
        right_weight[static_cast<std::size_t>(c)] = dx;
    }
    for (int k = 0; k < channels; ++k) {
        for (int r = 0; r < in_h; ++r) {
            const auto in = row_at(k, r);
            float* out = row_of(part, k, r);
            for (std::size_t c = 0; c < left.size(); ++c) {
                const int ix = left[c];
                out[c] = left_weight[c] * in[ix] + right_weight[c] * in[ix + 1];
            }
            for (int c = interpolated; c < w; ++c) out[c] = in[in_w - 1];
        }
    }
}

// Vertical pass: darknet first writes (1-dy)*row(iy), then adds dy*row(iy+1) as a separate float
// sum, and skips the addition on the last output row even when dy is not 0.
void resize_columns(const Image& part, Image& resized) {
    const int h = resized.h;
    const int w = resized.w;
    const float h_scale = corner_aligned_scale(part.h, h);
    for (int k = 0; k < part.c; ++k) {
        for (int r = 0; r < h; ++r) {
            const float sy = static_cast<float>(r) * h_scale;
            const int iy = std::min(static_cast<int>(sy), part.h - 1);
            const float dy = sy - static_cast<float>(iy);
            const float* top = row_of(part, k, iy);
            float* out = row_of(resized, k, r);
            for (int c = 0; c < w; ++c) out[c] = (1 - dy) * top[c];
            if (r == h - 1 || part.h == 1) continue;
            const float* bottom = row_of(part, k, std::min(iy + 1, part.h - 1));
            for (int c = 0; c < w; ++c) out[c] += dy * bottom[c];
        }
    }
}

void require_positive_size(int w, int h) {
    if (w <= 0 || h <= 0) {
        throw Error("resize_image: target size " + std::to_string(w) + "x" + std::to_string(h) +
                    " must be positive");
    }
}

template <typename RowAt>
Image resize_two_passes(int in_w, int in_h, int channels, const RowAt& row_at, int w, int h) {
    Image part = make_image(w, in_h, channels);
    resize_rows(in_w, in_h, channels, row_at, part);
    Image resized = make_image(w, h, channels);
    resize_columns(part, resized);
    return resized;
}

}  // namespace

Image resize_image(const Image& image, int w, int h) {
    vision_detail::require_valid_image(image, "resize_image");
    require_positive_size(w, h);
    return resize_two_passes(
        image.w, image.h, image.c, [&](int k, int r) { return FloatRow{row_of(image, k, r)}; }, w, h);
}

namespace vision_detail {

Image resize_rgb(const RgbPixelsView& pixels, int w, int h) {
    require_valid_pixels(pixels, "resize_rgb");
    require_positive_size(w, h);
    const std::array<float, 256>* unit = &unit_values();
    const std::size_t row_bytes = static_cast<std::size_t>(pixels.width) * 3;
    return resize_two_passes(
        pixels.width, pixels.height, 3,
        [&](int k, int r) {
            const int byte_of_channel = pixels.bgr ? 2 - k : k;  // channel k of the RGB result
            return RgbRow{pixels.data + row_bytes * static_cast<std::size_t>(r) + byte_of_channel, unit};
        },
        w, h);
}

}  // namespace vision_detail

}  // namespace fpgacnn

// darknet's resize_image, operation for operation: the results must be bit-identical to darknet's
// because the network input (and so every detection) depends on them.
#include <algorithm>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "vision/image_checks.hpp"

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

// Horizontal pass: each row of `im` is interpolated to width w. The last column copies the last
// input pixel instead of interpolating (darknet's special case).
void resize_rows(const Image& im, Image& part) {
    const int w = part.w;
    const float w_scale = corner_aligned_scale(im.w, w);
    for (int k = 0; k < im.c; ++k) {
        for (int r = 0; r < im.h; ++r) {
            const float* in = row_of(im, k, r);
            float* out = row_of(part, k, r);
            for (int c = 0; c < w; ++c) {
                if (c == w - 1 || im.w == 1) {
                    out[c] = in[im.w - 1];
                    continue;
                }
                const float sx = static_cast<float>(c) * w_scale;
                // float -> int truncation as darknet's (int) cast; the min only guards memory safety.
                const int ix = std::min(static_cast<int>(sx), im.w - 2);
                const float dx = sx - static_cast<float>(ix);
                out[c] = (1 - dx) * in[ix] + dx * in[ix + 1];
            }
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

}  // namespace

Image resize_image(const Image& image, int w, int h) {
    vision_detail::require_valid_image(image, "resize_image");
    if (w <= 0 || h <= 0) {
        throw Error("resize_image: target size " + std::to_string(w) + "x" + std::to_string(h) +
                    " must be positive");
    }
    Image part = make_image(w, image.h, image.c);
    resize_rows(image, part);
    Image resized = make_image(w, h, image.c);
    resize_columns(part, resized);
    return resized;
}

}  // namespace fpgacnn

#include <algorithm>
#include <cstdint>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "vision/image_checks.hpp"
#include "vision/letterbox_geometry.hpp"
#include "vision/resize_rgb.hpp"

namespace fpgacnn {

namespace vision_detail {

LetterboxSize letterbox_size(int image_w, int image_h, int net_w, int net_h) {
    if (image_w <= 0 || image_h <= 0 || net_w <= 0 || net_h <= 0) {
        throw Error("letterbox: image " + std::to_string(image_w) + "x" + std::to_string(image_h) +
                    " and network input " + std::to_string(net_w) + "x" + std::to_string(net_h) +
                    " must all be positive");
    }
    // The comparison is in float, exactly as darknet writes it: for some sizes it differs from the
    // exact rational comparison, and that choice decides which side is scaled.
    const float width_ratio = static_cast<float>(net_w) / static_cast<float>(image_w);
    const float height_ratio = static_cast<float>(net_h) / static_cast<float>(image_h);
    const bool scale_by_width = width_ratio < height_ratio;
    LetterboxSize size;
    // 64-bit products: the same truncating quotient as darknet's int math, without its overflow.
    if (scale_by_width) {
        size.w = net_w;
        size.h = static_cast<int>(static_cast<std::int64_t>(image_h) * net_w / image_w);
    } else {
        size.h = net_h;
        size.w = static_cast<int>(static_cast<std::int64_t>(image_w) * net_h / image_h);
    }
    // darknet crashes on a side that rounds to 0 (an image hundreds of times wider than tall);
    // one pixel keeps the result usable.
    size.w = std::max(size.w, 1);
    size.h = std::max(size.h, 1);
    return size;
}

}  // namespace vision_detail

namespace {

// darknet's embed_image of the resized image into a w x h canvas of 0.5, centred.
Image embed_centred(const Image& resized, int w, int h) {
    Image boxed;
    boxed.w = w;
    boxed.h = h;
    boxed.c = resized.c;
    boxed.data.assign(static_cast<std::size_t>(w) * h * resized.c, 0.5f);

    // darknet's embed_image drops pixels outside the destination; letterbox_size never produces
    // any, but the clipping keeps this copy safe whatever the geometry.
    const int dx = (w - resized.w) / 2;
    const int dy = (h - resized.h) / 2;
    const int x_begin = std::max(0, -dx);
    const int x_end = std::min(resized.w, w - dx);
    const int y_begin = std::max(0, -dy);
    const int y_end = std::min(resized.h, h - dy);
    for (int k = 0; k < resized.c; ++k) {
        for (int y = y_begin; y < y_end; ++y) {
            const float* src = &resized.data[(static_cast<std::size_t>(k) * resized.h + y) * resized.w];
            float* dst = &boxed.data[(static_cast<std::size_t>(k) * h + (y + dy)) * w + dx];
            std::copy(src + x_begin, src + std::max(x_begin, x_end), dst + x_begin);
        }
    }
    return boxed;
}

}  // namespace

Image letterbox_image(const Image& image, int w, int h) {
    vision_detail::require_valid_image(image, "letterbox_image");
    const vision_detail::LetterboxSize inner = vision_detail::letterbox_size(image.w, image.h, w, h);
    return embed_centred(resize_image(image, inner.w, inner.h), w, h);
}

Image letterbox_rgb(const RgbPixelsView& pixels, int w, int h) {
    vision_detail::require_valid_pixels(pixels, "letterbox_rgb");
    const vision_detail::LetterboxSize inner =
        vision_detail::letterbox_size(pixels.width, pixels.height, w, h);
    return embed_centred(vision_detail::resize_rgb(pixels, inner.w, inner.h), w, h);
}

}  // namespace fpgacnn

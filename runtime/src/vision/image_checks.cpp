#include "vision/image_checks.hpp"

#include "fpgacnn/error.hpp"

namespace fpgacnn::vision_detail {

void require_valid_image(const Image& image, const std::string& what) {
    if (image.w <= 0 || image.h <= 0 || image.c <= 0) {
        throw Error(what + ": the image is empty (" + std::to_string(image.w) + "x" +
                    std::to_string(image.h) + "x" + std::to_string(image.c) +
                    "); load it with load_image() or image_from_bgr() first");
    }
    const std::size_t expected = static_cast<std::size_t>(image.w) * image.h * image.c;
    if (image.data.size() != expected) {
        throw Error(what + ": the image claims " + std::to_string(image.w) + "x" + std::to_string(image.h) +
                    "x" + std::to_string(image.c) + " = " + std::to_string(expected) + " values but holds " +
                    std::to_string(image.data.size()));
    }
}

void require_valid_pixels(const RgbPixelsView& pixels, const std::string& what) {
    const std::string size = std::to_string(pixels.width) + "x" + std::to_string(pixels.height);
    if (pixels.width <= 0 || pixels.height <= 0)
        throw Error(what + ": the RGB pixels are empty (" + size + ")");
    const std::size_t expected = static_cast<std::size_t>(pixels.width) * pixels.height * 3;
    if (pixels.data == nullptr || pixels.size != expected) {
        throw Error(what + ": " + size + " RGB pixels need " + std::to_string(expected) + " bytes but " +
                    std::to_string(pixels.data == nullptr ? 0 : pixels.size) + " are given");
    }
}

}  // namespace fpgacnn::vision_detail

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

}  // namespace fpgacnn::vision_detail

#include "image_input.hpp"

#include "fpgacnn/error.hpp"

namespace fpgacnn::serve {

FrameInput detector_input(ImageInput&& input, const std::string& request_id) {
    const std::string name = "request '" + request_id + "' input 'image'";
    if (input.form == ImageInput::Form::Encoded) {
        if (input.bytes.empty())
            throw ServeError(ErrorKind::InvalidArgument, name + ": the encoded image is empty");
        try {
            const auto* file = reinterpret_cast<const std::uint8_t*>(input.bytes.data());
            // As 8-bit pixels: the detector letterboxes them without a full-size float image.
            return std::make_shared<const RgbPixels>(decode_rgb_pixels(file, input.bytes.size(), name));
        } catch (const Error& e) {
            throw ServeError(ErrorKind::InvalidArgument, e.what());
        }
    }
    if (input.height < 1 || input.width < 1 || input.height > kMaxPixelSide || input.width > kMaxPixelSide) {
        throw ServeError(ErrorKind::InvalidArgument, name + ": shape [" + std::to_string(input.height) +
                                                         ", " + std::to_string(input.width) +
                                                         ", 3] must have sides in [1, " +
                                                         std::to_string(kMaxPixelSide) + "]");
    }
    const std::size_t expected =
        static_cast<std::size_t>(input.height) * static_cast<std::size_t>(input.width) * 3;
    if (input.bytes.size() != expected) {
        throw ServeError(ErrorKind::InvalidArgument, name + ": " + std::to_string(input.bytes.size()) +
                                                         " bytes for shape [" + std::to_string(input.height) +
                                                         ", " + std::to_string(input.width) +
                                                         ", 3], which needs " + std::to_string(expected));
    }
    // Pixels and the file they were decoded from give the same detections: the detector converts
    // them as image_from_rgb (the camera's conversion) does.
    if (!input.storage) throw ServeError(ErrorKind::Internal, name + ": the pixels' buffer is not held");
    const RgbPixelsView pixels(reinterpret_cast<const std::uint8_t*>(input.bytes.data()), input.bytes.size(),
                               input.width, input.height);
    return FrameInput(pixels, std::move(input.storage));
}

}  // namespace fpgacnn::serve

#include "image_input.hpp"

#include "fpgacnn/error.hpp"

namespace fpgacnn::serve {

std::future<DetectionResult> DetectorInput::submit_to(Detector& detector, FrameThresholds thresholds) const {
    return pixels ? detector.submit(pixels, thresholds) : detector.submit(image, thresholds);
}

DetectorInput detector_input(ImageInput&& input, const std::string& request_id) {
    const std::string name = "request '" + request_id + "' input 'image'";
    if (input.form == ImageInput::Form::Encoded) {
        if (input.bytes.empty())
            throw ServeError(ErrorKind::InvalidArgument, name + ": the encoded image is empty");
        try {
            return {std::make_shared<const Image>(decode_image(input.bytes.data(), input.bytes.size(), name)),
                    nullptr};
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
    auto pixels = std::make_shared<RgbPixels>();
    pixels->data = std::move(input.bytes);
    pixels->width = input.width;
    pixels->height = input.height;
    return {nullptr, std::move(pixels)};
}

}  // namespace fpgacnn::serve

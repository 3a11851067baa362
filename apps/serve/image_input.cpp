#include "image_input.hpp"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "fpgacnn/error.hpp"

namespace fpgacnn::serve {

Image image_from_input(const ImageInput& input, const std::string& request_id) {
    const std::string name = "request '" + request_id + "' input 'image'";
    if (input.form == ImageInput::Form::Encoded) {
        if (input.bytes.empty())
            throw ServeError(ErrorKind::InvalidArgument, name + ": the encoded image is empty");
        try {
            return decode_image(input.bytes.data(), input.bytes.size(), name);
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
    // The same conversion as a camera frame's (image_from_bgr), so pixels and the file they were
    // decoded from give the same detections.
    const cv::Mat rgb(input.height, input.width, CV_8UC3, const_cast<std::uint8_t*>(input.bytes.data()));
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    return image_from_bgr(bgr);
}

}  // namespace fpgacnn::serve

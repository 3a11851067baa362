// Image loading as darknet built with OpenCV does it: cv::imread(IMREAD_COLOR) gives 8-bit BGR,
// darknet copies it to planar float dividing by 255. (in double) and then swaps R and B.
#include <filesystem>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

Image image_from_bgr(const cv::Mat& bgr) {
    if (bgr.empty()) throw Error("image_from_bgr: the frame is empty (no image was captured or decoded)");
    if (bgr.type() != CV_8UC3) {
        throw Error("image_from_bgr: expected an 8-bit 3-channel BGR frame (CV_8UC3) but got OpenCV type " +
                    cv::typeToString(bgr.type()) + "; convert it with cv::cvtColor / Mat::convertTo first");
    }
    Image image;
    image.w = bgr.cols;
    image.h = bgr.rows;
    image.c = 3;
    image.data.resize(static_cast<std::size_t>(image.w) * image.h * 3);
    const std::size_t plane = static_cast<std::size_t>(image.w) * image.h;
    for (int y = 0; y < image.h; ++y) {
        const unsigned char* row = bgr.ptr<unsigned char>(y);  // honours the step of ROI views
        for (int x = 0; x < image.w; ++x) {
            const std::size_t at = static_cast<std::size_t>(y) * image.w + x;
            // BGR in memory -> RGB planes (darknet's rgbgr_image after the copy). The division is
            // in double as in darknet's ipl_to_image; for 8-bit values it rounds to the same float.
            for (int ch = 0; ch < 3; ++ch) {
                const double value = row[3 * x + (2 - ch)];
                image.data[static_cast<std::size_t>(ch) * plane + at] = static_cast<float>(value / 255.);
            }
        }
    }
    return image;
}

Image load_image(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        throw Error(path + ": image file not found; check the path");
    }
    if (std::filesystem::is_directory(path, ec)) {
        throw Error(path + ": is a directory, not an image file");
    }
    cv::Mat bgr;
    try {
        bgr = cv::imread(path, cv::IMREAD_COLOR);
    } catch (const cv::Exception& e) {
        throw Error(path + ": OpenCV could not decode the image (" + e.what() +
                    "); check that it is a valid JPEG/PNG/BMP file");
    }
    if (bgr.empty()) {
        throw Error(path +
                    ": cannot read or decode the image; check that the file is readable and is a "
                    "complete image in a format OpenCV supports (JPEG, PNG, BMP, ...)");
    }
    return image_from_bgr(bgr);
}

}  // namespace fpgacnn

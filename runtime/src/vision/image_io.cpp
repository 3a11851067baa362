// Image loading as darknet built with OpenCV does it: cv::imread(IMREAD_COLOR) gives 8-bit BGR,
// darknet copies it to planar float dividing by 255. (in double) and then swaps R and B.
// fpgacnn reads the file itself (a regular file only: see core/input_file.hpp) and decodes the bytes
// with cv::imdecode (through the media plugin, media/media_codecs.hpp), which gives the same pixels
// as cv::imread (EXIF orientation included; tested),
// after checking the header's size (every supported format's) against the pixel cap and the memory
// budget. A clean JPEG decodes in one libjpeg pass to the same pixels (vision/jpeg_rgb.hpp); any
// other, or a damaged one, through cv::imdecode after checking it for damage.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <utility>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "core/input_file.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "media/media_codecs.hpp"
#include "vision/image_header.hpp"
#include "vision/jpeg_damage.hpp"
#include "vision/jpeg_rgb.hpp"
#include "vision/unit_values.hpp"

namespace fpgacnn {

namespace {

// Bytes per pixel while loading: the 8-bit BGR decode (3) and the float RGB Image (12).
constexpr std::uint64_t kBytesPerPixel = 3 + 3 * sizeof(float);

void require_pixels(std::uint64_t width, std::uint64_t height, const std::string& name) {
    const std::uint64_t pixels = width * height;
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (pixels > kMaxImagePixels) {
        throw Error(name + ": the image is " + size + " = " + std::to_string(pixels) +
                    " pixels, more than the limit of " + std::to_string(kMaxImagePixels) +
                    " (2^30, OpenCV's decoder limit); scale it down first");
    }
    require_host_memory(pixels * kBytesPerPixel, name + " (" + size + ")",
                        "3 bytes per pixel decoded, 12 as float RGB", "scale the image down first");
}

cv::Mat decode_bgr(const std::uint8_t* data, std::size_t size, const std::string& name) {
    // cv::Mat over the caller's bytes without a copy; imdecode only reads it.
    const cv::Mat encoded(1, static_cast<int>(size), CV_8UC1, const_cast<std::uint8_t*>(data));
    std::string error;
    cv::Mat bgr = media::image_codecs(name).decode_bgr(encoded, error);
    if (!error.empty()) {
        throw Error(name + ": OpenCV could not decode the image (" + error +
                    "); check that it is a valid JPEG/PNG/BMP file");
    }
    if (bgr.empty()) {
        throw Error(name +
                    ": cannot decode the image; check that the file is a complete image in a format "
                    "OpenCV supports (JPEG, PNG, BMP, ...)");
    }
    return bgr;
}

/// Interleaved 8-bit rows -> RGB float planes. `red_at` is the red byte's place in a pixel (2 for BGR,
/// 0 for RGB): darknet's rgbgr_image after the copy, folded in.
Image image_from_interleaved(int width, int height, int red_at,
                             const std::function<const std::uint8_t*(int)>& row_at) {
    Image image;
    image.w = width;
    image.h = height;
    image.c = 3;
    const std::size_t plane = static_cast<std::size_t>(width) * height;
    image.data.resize(plane * 3);
    const std::array<float, 256>& unit = vision_detail::unit_values();
    float* red = image.data.data();
    float* green = red + plane;
    float* blue = green + plane;
    const int blue_at = 2 - red_at;
    for (int y = 0; y < height; ++y) {
        const std::uint8_t* row = row_at(y);
        const std::size_t at = static_cast<std::size_t>(y) * width;
        for (int x = 0; x < width; ++x) {
            red[at + x] = unit[row[3 * x + red_at]];
            green[at + x] = unit[row[3 * x + 1]];
            blue[at + x] = unit[row[3 * x + blue_at]];
        }
    }
    return image;
}

void require_bgr_frame(const cv::Mat& bgr, const std::string& what) {
    if (bgr.empty()) throw Error(what + ": the frame is empty (no image was captured or decoded)");
    if (bgr.type() != CV_8UC3) {
        throw Error(what + ": expected an 8-bit 3-channel BGR frame (CV_8UC3) but got OpenCV type " +
                    cv::typeToString(bgr.type()) + "; convert it with cv::cvtColor / Mat::convertTo first");
    }
}

}  // namespace

Image image_from_bgr(const cv::Mat& bgr) {
    require_bgr_frame(bgr, "image_from_bgr");
    // Row by row: honours the step of ROI views.
    return image_from_interleaved(bgr.cols, bgr.rows, 2, [&](int y) { return bgr.ptr<std::uint8_t>(y); });
}

RgbPixels rgb_pixels_from_bgr(const cv::Mat& bgr) {
    require_bgr_frame(bgr, "rgb_pixels_from_bgr");
    RgbPixels pixels;
    pixels.width = bgr.cols;
    pixels.height = bgr.rows;
    pixels.data.resize(static_cast<std::size_t>(bgr.cols) * static_cast<std::size_t>(bgr.rows) * 3);
    // cvtColor writes straight into the vector (a Mat header over it); it reads ROI views row by row.
    cv::Mat rgb(bgr.rows, bgr.cols, CV_8UC3, pixels.data.data());
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return pixels;
}

Image image_from_rgb(const std::uint8_t* rgb, int width, int height) {
    if (rgb == nullptr || width < 1 || height < 1)
        throw Error("image_from_rgb: no pixels (" + std::to_string(width) + "x" + std::to_string(height) +
                    ")");
    const std::size_t row_bytes = static_cast<std::size_t>(width) * 3;
    return image_from_interleaved(width, height, 0, [&](int y) { return rgb + row_bytes * y; });
}

namespace {

/// What decode_checked gives: 8-bit RGB from the one-pass JPEG decoder, or else OpenCV's 8-bit BGR.
struct DecodedPixels {
    RgbPixels rgb;
    cv::Mat bgr;
};

/// decode_image's checks and decode, and in `damage` what libjpeg reported of a damaged JPEG (logged
/// here too).
DecodedPixels decode_checked(const std::uint8_t* data, std::size_t size, const std::string& name,
                             std::string& damage) {
    if (size == 0) throw Error(name + ": the image file is empty");
    if (size > static_cast<std::size_t>(INT32_MAX)) {
        throw Error(name + ": the image file has " + std::to_string(size) + " bytes, more than 2 GiB");
    }
    const char* format = vision_detail::supported_image_format(data, size);
    if (format == nullptr) {
        throw Error(name +
                    ": not a JPEG, PNG, BMP, PNM or WebP image; other formats (TIFF, JPEG 2000, DICOM, "
                    "OpenEXR, ...) are refused because their decoders are a large attack surface: convert "
                    "the image to JPEG or PNG first");
    }
    // Every supported format states its size up front; without it the decoder would allocate what the
    // file claims before the checks below could run (fuzzing: a 2.2 GB allocation), so refuse it here.
    const auto header = vision_detail::image_header_size(data, size);
    if (!header) {
        throw Error(name + ": cannot read the image size from its " + format +
                    " header (a truncated or damaged file, or a variant OpenCV does not read either); "
                    "re-save the image as JPEG or PNG");
    }
    require_pixels(header->width, header->height, name);
    DecodedPixels decoded;
    if (vision_detail::is_jpeg(data, size)) {
        // 2^30 pixels (the cap) in 4:2:0 take 3 GiB of coefficients: the budget bounds it further.
        const HostMemoryBudget budget = host_memory_budget();
        const std::uint64_t limit = std::uint64_t{6} << 30;
        const std::uint64_t max_memory = budget.limited ? std::min(limit, budget.bytes) : limit;
        // A clean JPEG in one pass; a damaged one (and the few OpenCV treats on its own) as before.
        if (vision_detail::decode_clean_jpeg_rgb(data, size, max_memory, decoded.rgb)) {
            require_pixels(static_cast<std::uint64_t>(decoded.rgb.width),
                           static_cast<std::uint64_t>(decoded.rgb.height), name);
            return decoded;
        }
        damage = vision_detail::jpeg_damage(data, size, max_memory);
        if (!damage.empty()) {
            spdlog::warn("{}: damaged JPEG ({}); what OpenCV decodes of it is used", name, damage);
        }
    }
    decoded.bgr = decode_bgr(data, size, name);
    // The decoded size, should a decoder read another one than the header check did.
    require_pixels(static_cast<std::uint64_t>(decoded.bgr.cols), static_cast<std::uint64_t>(decoded.bgr.rows),
                   name);
    return decoded;
}

}  // namespace

Image decode_image(const std::uint8_t* data, std::size_t size, const std::string& name) {
    std::string damage;
    const DecodedPixels decoded = decode_checked(data, size, name, damage);
    Image image = decoded.bgr.empty()
                      ? image_from_rgb(decoded.rgb.data.data(), decoded.rgb.width, decoded.rgb.height)
                      : image_from_bgr(decoded.bgr);
    image.damaged = !damage.empty();
    image.damage = damage;
    return image;
}

RgbPixels decode_rgb_pixels(const std::uint8_t* data, std::size_t size, const std::string& name) {
    std::string damage;  // logged by the decode; RgbPixels has no place for it
    DecodedPixels decoded = decode_checked(data, size, name, damage);
    return decoded.bgr.empty() ? std::move(decoded.rgb) : rgb_pixels_from_bgr(decoded.bgr);
}

Image load_image(const std::string& path) {
    core::InputFile file(path, {"image file", "check the image path"});
    const std::vector<std::uint8_t> bytes =
        file.read_all(kMaxImageFileBytes, "OpenCV decodes at most 2 GiB of encoded data");
    return decode_image(bytes.data(), bytes.size(), path);
}

}  // namespace fpgacnn

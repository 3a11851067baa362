#include "vision/image_header.hpp"

#include <cstring>

namespace fpgacnn::vision_detail {

namespace {

std::uint32_t be16(const std::uint8_t* p) { return static_cast<std::uint32_t>(p[0] << 8 | p[1]); }
std::uint32_t be32(const std::uint8_t* p) { return be16(p) << 16 | be16(p + 2); }
std::uint32_t le32(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

// Start-of-frame markers carry the frame size: C0-CF except DHT (C4), JPG (C8) and DAC (CC).
bool is_start_of_frame(std::uint8_t marker) {
    return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

std::optional<HeaderSize> jpeg_size(const std::uint8_t* data, std::size_t size) {
    std::size_t at = 2;  // after SOI
    while (at + 4 <= size) {
        if (data[at] != 0xFF) {  // garbage between segments: libjpeg skips it to the next 0xFF, so do we
            ++at;
            continue;
        }
        const std::uint8_t marker = data[at + 1];
        if (marker == 0xFF) {  // fill byte
            ++at;
            continue;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // no length field
            at += 2;
            continue;
        }
        if (marker == 0xD9 || marker == 0xDA) return std::nullopt;  // end or scan before any frame
        const std::uint32_t length = be16(data + at + 2);
        if (is_start_of_frame(marker)) {
            if (at + 9 > size || length < 7) return std::nullopt;
            return HeaderSize{be16(data + at + 7), be16(data + at + 5)};
        }
        at += 2 + length;
    }
    return std::nullopt;
}

// "P1".."P6": whitespace-separated ASCII width and height, '#' comments to the end of a line.
std::optional<HeaderSize> pnm_size(const std::uint8_t* data, std::size_t size) {
    std::size_t at = 2;
    std::uint32_t values[2] = {0, 0};
    for (std::uint32_t& value : values) {
        while (at < size && (data[at] == ' ' || data[at] == '\t' || data[at] == '\r' || data[at] == '\n' ||
                             data[at] == '#')) {
            if (data[at] == '#') {
                while (at < size && data[at] != '\n') ++at;
            } else {
                ++at;
            }
        }
        std::size_t digits = 0;
        while (at < size && data[at] >= '0' && data[at] <= '9') {
            if (++digits > 9) return std::nullopt;
            value = value * 10 + (data[at++] - '0');
        }
        if (digits == 0) return std::nullopt;
    }
    return HeaderSize{values[0], values[1]};
}

bool is_png(const std::uint8_t* data, std::size_t size) {
    static const std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    return size >= 8 && std::memcmp(data, kSignature, 8) == 0;
}

bool is_pnm(const std::uint8_t* data, std::size_t size) {
    return size >= 3 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6';
}

}  // namespace

bool is_jpeg(const std::uint8_t* data, std::size_t size) {
    return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

const char* supported_image_format(const std::uint8_t* data, std::size_t size) {
    if (is_jpeg(data, size)) return "JPEG";
    if (is_png(data, size)) return "PNG";
    if (size >= 2 && data[0] == 'B' && data[1] == 'M') return "BMP";
    if (is_pnm(data, size)) return "PNM";
    if (size >= 12 && std::memcmp(data, "RIFF", 4) == 0 && std::memcmp(data + 8, "WEBP", 4) == 0)
        return "WebP";
    return nullptr;
}

std::optional<HeaderSize> image_header_size(const std::uint8_t* data, std::size_t size) {
    if (size >= 24 && is_png(data, size) && std::memcmp(data + 12, "IHDR", 4) == 0) {
        return HeaderSize{be32(data + 16), be32(data + 20)};
    }
    if (is_jpeg(data, size)) return jpeg_size(data, size);
    if (size >= 26 && data[0] == 'B' && data[1] == 'M') {
        // BITMAPINFOHEADER: signed width and height (negative height = top-down rows).
        const auto width = static_cast<std::int32_t>(le32(data + 18));
        const auto height = static_cast<std::int32_t>(le32(data + 22));
        const auto magnitude = [](std::int32_t v) {
            return v < 0 ? static_cast<std::uint32_t>(0) - static_cast<std::uint32_t>(v)
                         : static_cast<std::uint32_t>(v);
        };
        return HeaderSize{magnitude(width), magnitude(height)};
    }
    if (is_pnm(data, size)) return pnm_size(data, size);
    return std::nullopt;
}

}  // namespace fpgacnn::vision_detail

#include "vision/image_header.hpp"

#include <algorithm>
#include <cstring>

namespace fpgacnn::vision_detail {

namespace {

std::uint32_t be16(const std::uint8_t* p) { return static_cast<std::uint32_t>(p[0] << 8 | p[1]); }
std::uint32_t le16(const std::uint8_t* p) { return static_cast<std::uint32_t>(p[0] | p[1] << 8); }
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

// "P1".."P6": whitespace-separated ASCII width and height, as OpenCV's PxM reader takes them: a '#'
// comment runs to the end of a line ('\n' or '\r'), whitespace is isspace(), a number has any count of
// digits (leading zeros too). Values saturate beyond the 32 bits (the pixel cap refuses them).
bool is_pnm_space(std::uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::optional<HeaderSize> pnm_size(const std::uint8_t* data, std::size_t size) {
    std::size_t at = 2;
    std::uint32_t values[2] = {0, 0};
    for (std::uint32_t& value : values) {
        while (at < size && (is_pnm_space(data[at]) || data[at] == '#')) {
            if (data[at] == '#') {
                while (at < size && data[at] != '\n' && data[at] != '\r') ++at;
            } else {
                ++at;
            }
        }
        std::size_t digits = 0;
        std::uint64_t number = 0;
        while (at < size && data[at] >= '0' && data[at] <= '9') {
            ++digits;
            number = std::min<std::uint64_t>(number * 10 + (data[at++] - '0'), UINT32_MAX);
        }
        if (digits == 0) return std::nullopt;
        value = static_cast<std::uint32_t>(number);
    }
    return HeaderSize{values[0], values[1]};
}

// BMP as OpenCV's reader takes it: the header size at byte 14 picks the layout, 16-bit sizes in the
// OS/2 core header (12 bytes), signed 32-bit ones (negative height = top-down rows) in
// BITMAPINFOHEADER and its successors (36 bytes and more); OpenCV refuses any other.
std::optional<HeaderSize> bmp_size(const std::uint8_t* data, std::size_t size) {
    if (size < 18) return std::nullopt;
    const std::uint32_t header_bytes = le32(data + 14);
    if (header_bytes == 12 && size >= 22) {
        return HeaderSize{le16(data + 18), le16(data + 20)};
    }
    if (header_bytes < 36 || size < 26) return std::nullopt;
    const auto magnitude = [](std::uint32_t bits) {
        const auto value = static_cast<std::int32_t>(bits);
        return value < 0 ? static_cast<std::uint32_t>(0) - bits : bits;
    };
    return HeaderSize{magnitude(le32(data + 18)), magnitude(le32(data + 22))};
}

std::uint32_t le24(const std::uint8_t* p) {
    return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
           static_cast<std::uint32_t>(p[2]) << 16;
}

// WebP (RIFF container, libwebp's WebPGetFeatures): the first chunk is VP8X (extended: the canvas
// size, 24 bits each, minus one), VP8L (lossless: 14 bits each, minus one, after the 0x2F signature)
// or "VP8 " (lossy: 14 bits each after the key frame's start code 9D 01 2A).
std::optional<HeaderSize> webp_size(const std::uint8_t* data, std::size_t size) {
    if (size >= 30 && std::memcmp(data + 12, "VP8X", 4) == 0) {
        return HeaderSize{le24(data + 24) + 1, le24(data + 27) + 1};
    }
    if (size >= 25 && std::memcmp(data + 12, "VP8L", 4) == 0 && data[20] == 0x2F) {
        const std::uint32_t bits = le32(data + 21);
        return HeaderSize{(bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1};
    }
    if (size >= 30 && std::memcmp(data + 12, "VP8 ", 4) == 0 && data[23] == 0x9D && data[24] == 0x01 &&
        data[25] == 0x2A) {
        return HeaderSize{le16(data + 26) & 0x3FFF, le16(data + 28) & 0x3FFF};
    }
    return std::nullopt;
}

bool is_png(const std::uint8_t* data, std::size_t size) {
    static const std::uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    return size >= 8 && std::memcmp(data, kSignature, 8) == 0;
}

bool is_bmp(const std::uint8_t* data, std::size_t size) {
    return size >= 2 && data[0] == 'B' && data[1] == 'M';
}

bool is_webp(const std::uint8_t* data, std::size_t size) {
    return size >= 12 && std::memcmp(data, "RIFF", 4) == 0 && std::memcmp(data + 8, "WEBP", 4) == 0;
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
    if (is_bmp(data, size)) return "BMP";
    if (is_pnm(data, size)) return "PNM";
    if (is_webp(data, size)) return "WebP";
    return nullptr;
}

std::optional<HeaderSize> image_header_size(const std::uint8_t* data, std::size_t size) {
    if (size >= 24 && is_png(data, size) && std::memcmp(data + 12, "IHDR", 4) == 0) {
        return HeaderSize{be32(data + 16), be32(data + 20)};
    }
    if (is_jpeg(data, size)) return jpeg_size(data, size);
    if (is_bmp(data, size)) return bmp_size(data, size);
    if (is_pnm(data, size)) return pnm_size(data, size);
    if (is_webp(data, size)) return webp_size(data, size);
    return std::nullopt;
}

}  // namespace fpgacnn::vision_detail

#include "vision/jpeg_rgb.hpp"

#include <climits>
#include <cstring>
#include <vector>

#include "vision/jpeg_errors.hpp"

namespace fpgacnn::vision_detail {

namespace {

constexpr int kApp1 = JPEG_APP0 + 1;

// Each phase below holds only plain C objects in its frame (longjmp skips no destructors) and
// returns false on a fatal libjpeg error. Any warning (JpegErrors::has_message) means damaged data:
// the decode is then OpenCV's to do.

bool read_header(jpeg_decompress_struct& cinfo, JpegErrors& errors, const std::uint8_t* data,
                 std::size_t size, std::uint64_t max_memory) {
    if (setjmp(errors.fatal) != 0) return false;
    jpeg_create_decompress(&cinfo);
    read_jpeg_from_memory(cinfo, data, size, max_memory);
    jpeg_save_markers(&cinfo, kApp1, 0xFFFF);  // what OpenCV reads the Exif orientation from
    return jpeg_read_header(&cinfo, TRUE) == JPEG_HEADER_OK;
}

bool start_rgb_output(jpeg_decompress_struct& cinfo, JpegErrors& errors) {
    if (setjmp(errors.fatal) != 0) return false;
    cinfo.out_color_space = JCS_RGB;  // OpenCV's choice too (it swaps to BGR afterwards)
    return jpeg_start_decompress(&cinfo) == TRUE;
}

bool read_rows(jpeg_decompress_struct& cinfo, JpegErrors& errors, JSAMPROW* rows) {
    if (setjmp(errors.fatal) != 0) return false;
    while (cinfo.output_scanline < cinfo.output_height) {
        const JDIMENSION at = cinfo.output_scanline;
        // With the whole file in memory, no row is missing unless the data is: 0 rows means damage.
        if (jpeg_read_scanlines(&cinfo, rows + at, cinfo.output_height - at) == 0) return false;
    }
    return jpeg_finish_decompress(&cinfo) == TRUE;
}

std::uint32_t read_exif_u16(const std::uint8_t* p, bool little_endian) {
    return little_endian ? p[0] | (p[1] << 8) : (p[0] << 8) | p[1];
}

std::uint32_t read_exif_u32(const std::uint8_t* p, bool little_endian) {
    return little_endian ? read_exif_u16(p, true) | (read_exif_u16(p + 2, true) << 16)
                         : (read_exif_u16(p, false) << 16) | read_exif_u16(p + 2, false);
}

/// The orientation tag (0x0112) of an Exif APP1 segment's first image directory: 1 when absent,
/// 0 when the segment is not a well-formed Exif block (then OpenCV's reading of it decides).
std::uint32_t exif_orientation(const std::uint8_t* segment, std::size_t size) {
    constexpr std::size_t kExifHeader = 6;  // "Exif\0\0", then the TIFF header
    if (size < kExifHeader + 8 || std::memcmp(segment, "Exif\0\0", kExifHeader) != 0) return 0;
    const std::uint8_t* tiff = segment + kExifHeader;
    const std::size_t tiff_size = size - kExifHeader;
    bool little_endian = false;
    if (tiff[0] == 'I' && tiff[1] == 'I') {
        little_endian = true;
    } else if (tiff[0] != 'M' || tiff[1] != 'M') {
        return 0;
    }
    if (read_exif_u16(tiff + 2, little_endian) != 42) return 0;
    const std::uint32_t directory = read_exif_u32(tiff + 4, little_endian);
    if (directory > tiff_size || tiff_size - directory < 2) return 0;
    const std::uint32_t entries = read_exif_u16(tiff + directory, little_endian);
    constexpr std::size_t kEntryBytes = 12;  // tag, type, count, value
    if ((tiff_size - directory - 2) / kEntryBytes < entries) return 0;
    for (std::uint32_t i = 0; i < entries; ++i) {
        const std::uint8_t* entry = tiff + directory + 2 + kEntryBytes * i;
        if (read_exif_u16(entry, little_endian) != 0x0112) continue;
        constexpr std::uint32_t kShort = 3;
        if (read_exif_u16(entry + 2, little_endian) != kShort || read_exif_u32(entry + 4, little_endian) != 1)
            return 0;
        return read_exif_u16(entry + 8, little_endian);
    }
    return 1;
}

/// OpenCV reads the orientation from the first APP1 segment (cameras put Exif first, XMP after it): the
/// image is as stored when there is none, or when it is an Exif block with orientation 1 or none.
bool stored_upright(const jpeg_decompress_struct& cinfo) {
    for (const jpeg_marker_struct* m = cinfo.marker_list; m != nullptr; m = m->next) {
        if (m->marker != kApp1) continue;
        return m->data_length == m->original_length && exif_orientation(m->data, m->data_length) == 1;
    }
    return true;
}

bool has_huffman_tables(const jpeg_decompress_struct& cinfo) {
    return !(cinfo.ac_huff_tbl_ptrs[0] == nullptr && cinfo.ac_huff_tbl_ptrs[1] == nullptr &&
             cinfo.dc_huff_tbl_ptrs[0] == nullptr && cinfo.dc_huff_tbl_ptrs[1] == nullptr);
}

bool decode(jpeg_decompress_struct& cinfo, JpegErrors& errors, const std::uint8_t* data, std::size_t size,
            std::uint64_t max_memory, RgbPixels& out) {
    if (!read_header(cinfo, errors, data, size, max_memory) || errors.has_message) return false;
    if (cinfo.num_components == 4 || !has_huffman_tables(cinfo) || !stored_upright(cinfo)) return false;
    if (!start_rgb_output(cinfo, errors) || errors.has_message || cinfo.output_components != 3) return false;
    const auto width = static_cast<std::size_t>(cinfo.output_width);
    const auto height = static_cast<std::size_t>(cinfo.output_height);
    if (width == 0 || height == 0 || width > INT_MAX || height > INT_MAX) return false;
    out.width = static_cast<int>(width);
    out.height = static_cast<int>(height);
    out.data.resize(width * height * 3);
    std::vector<JSAMPROW> rows(height);
    for (std::size_t y = 0; y < height; ++y) rows[y] = out.data.data() + y * width * 3;
    return read_rows(cinfo, errors, rows.data()) && !errors.has_message;
}

}  // namespace

bool decode_clean_jpeg_rgb(const std::uint8_t* data, std::size_t size, std::uint64_t max_memory,
                           RgbPixels& out) {
    jpeg_decompress_struct cinfo{};
    JpegErrors errors{};
    attach_jpeg_errors(cinfo, errors);
    bool decoded = false;
    try {
        decoded = decode(cinfo, errors, data, size, max_memory, out);
    } catch (...) {
        jpeg_destroy_decompress(&cinfo);
        throw;  // out of memory for `out`: the caller's budget check should have refused the image
    }
    jpeg_destroy_decompress(&cinfo);
    if (!decoded) out = RgbPixels{};
    return decoded;
}

}  // namespace fpgacnn::vision_detail

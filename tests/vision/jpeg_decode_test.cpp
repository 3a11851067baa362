// A JPEG decodes to cv::imdecode's pixels whichever way it is coded: the one-pass decoder of clean
// JPEGs (vision/jpeg_rgb.cpp) and OpenCV's path for the rest (damaged data, Exif rotation) must agree
// with OpenCV byte for byte, as the detections of fpgacnn-detect and fpgacnn-serve depend on it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <jpeglib.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "fpgacnn/vision.hpp"
#include "test_paths.hpp"

namespace fpgacnn {
namespace {

using JpegBytes = std::vector<std::uint8_t>;

struct JpegCoding {
    const char* name;
    int luma_h = 2;  // luma sampling factors: 2x2 is 4:2:0, 2x1 4:2:2, 1x1 4:4:4
    int luma_v = 2;
    bool progressive = false;
    int restart_rows = 0;  // a restart marker every so many MCU rows (0: none)
    bool gray = false;
    bool optimized_huffman = false;  // optimized Huffman tables instead of the standard ones
};

// libjpeg directly, for the codings cv::imencode cannot make (its sampling is always 4:2:0).
JpegBytes encode_jpeg_as(const cv::Mat& bgr, const JpegCoding& coding) {
    cv::Mat source;
    if (coding.gray) {
        cv::cvtColor(bgr, source, cv::COLOR_BGR2GRAY);
    } else {
        cv::cvtColor(bgr, source, cv::COLOR_BGR2RGB);
    }
    jpeg_compress_struct cinfo{};
    jpeg_error_mgr errors{};
    cinfo.err = jpeg_std_error(&errors);
    jpeg_create_compress(&cinfo);
    unsigned char* buffer = nullptr;
    unsigned long size = 0;
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = static_cast<JDIMENSION>(source.cols);
    cinfo.image_height = static_cast<JDIMENSION>(source.rows);
    cinfo.input_components = coding.gray ? 1 : 3;
    cinfo.in_color_space = coding.gray ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, 90, TRUE);
    if (!coding.gray) {
        cinfo.comp_info[0].h_samp_factor = coding.luma_h;
        cinfo.comp_info[0].v_samp_factor = coding.luma_v;
    }
    if (coding.progressive) jpeg_simple_progression(&cinfo);
    cinfo.restart_in_rows = coding.restart_rows;
    cinfo.optimize_coding = coding.optimized_huffman ? TRUE : FALSE;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = source.ptr<std::uint8_t>(static_cast<int>(cinfo.next_scanline));
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    JpegBytes bytes(buffer, buffer + size);
    std::free(buffer);  // NOLINT(cppcoreguidelines-no-malloc): jpeg_mem_dest allocates with malloc
    return bytes;
}

// What OpenCV decodes the bytes to, as RGB pixels.
RgbPixels opencv_rgb_of(const JpegBytes& bytes) {
    const cv::Mat bgr = cv::imdecode(bytes, cv::IMREAD_COLOR);
    EXPECT_FALSE(bgr.empty());
    return rgb_pixels_from_bgr(bgr);
}

void expect_decodes_as_opencv(const JpegBytes& bytes, const std::string& what) {
    const RgbPixels expected = opencv_rgb_of(bytes);
    const RgbPixels pixels = decode_rgb_pixels(bytes.data(), bytes.size(), what);
    ASSERT_EQ(pixels.width, expected.width) << what;
    ASSERT_EQ(pixels.height, expected.height) << what;
    EXPECT_TRUE(pixels.data == expected.data) << what << ": pixels differ from cv::imdecode's";
    const Image image = decode_image(bytes.data(), bytes.size(), what);
    EXPECT_EQ(image.data, image_from_rgb(expected.data.data(), expected.width, expected.height).data) << what;
}

cv::Mat dog_crop() {
    const cv::Mat dog = cv::imread(test::darknet_file("data/dog.jpg"), cv::IMREAD_COLOR);
    // Odd sizes: partial MCUs at the right and bottom edges, where upsampling differs most.
    return dog(cv::Rect(101, 57, 333, 251)).clone();
}

TEST(JpegDecode, EveryCodingDecodesToOpenCvsPixels) {
    const cv::Mat crop = dog_crop();
    const std::vector<JpegCoding> codings = {
        {"4:2:0"},
        {"4:2:2", 2, 1},
        {"4:4:4", 1, 1},
        {"4:4:0", 1, 2},
        {"progressive 4:2:0", 2, 2, true},
        {"restart markers", 2, 2, false, 1},
        {"grayscale", 1, 1, false, 0, true},
        {"optimized tables 4:4:4", 1, 1, false, 0, false, true},
    };
    for (const JpegCoding& coding : codings)
        expect_decodes_as_opencv(encode_jpeg_as(crop, coding), coding.name);
}

TEST(JpegDecode, DarknetsSampleImagesDecodeToOpenCvsPixels) {
    for (const char* name : {"data/dog.jpg", "data/eagle.jpg", "data/giraffe.jpg", "data/horses.jpg",
                             "data/kite.jpg", "data/person.jpg", "data/scream.jpg"}) {
        std::ifstream in(test::darknet_file(name), std::ios::binary);
        const JpegBytes bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        expect_decodes_as_opencv(bytes, name);
    }
}

// `jpeg` with an APP1 segment holding `payload` inserted after SOI (so before any APP1 it has).
JpegBytes with_app1(const JpegBytes& jpeg, const JpegBytes& payload) {
    JpegBytes segment = {0xFF, 0xE1, 0, 0};
    segment.insert(segment.end(), payload.begin(), payload.end());
    const std::size_t length = segment.size() - 2;
    segment[2] = static_cast<std::uint8_t>(length >> 8);
    segment[3] = static_cast<std::uint8_t>(length & 0xFF);
    // SOI, the segment, the rest (one buffer: GCC 12 mistakes growing a 2-byte vector for an overflow).
    JpegBytes out(jpeg.size() + segment.size());
    std::copy(jpeg.begin(), jpeg.begin() + 2, out.begin());
    std::copy(segment.begin(), segment.end(), out.begin() + 2);
    std::copy(jpeg.begin() + 2, jpeg.end(), out.begin() + 2 + static_cast<std::ptrdiff_t>(segment.size()));
    return out;
}

// An Exif block whose first image directory has the orientation tag (0x0112) set to `orientation`.
JpegBytes exif_with_orientation(std::uint8_t orientation, bool big_endian) {
    JpegBytes exif = {'E', 'x', 'i', 'f', 0, 0};
    const JpegBytes tiff = big_endian ? JpegBytes{'M', 'M', 0, 42, 0, 0, 0,           8, 0, 1, 0x01, 0x12, 0,
                                                  3,   0,   0, 0,  1, 0, orientation, 0, 0, 0, 0,    0,    0}
                                      : JpegBytes{'I', 'I', 42, 0, 8, 0,           0, 0, 1, 0, 0x12, 0x01, 3,
                                                  0,   1,   0,  0, 0, orientation, 0, 0, 0, 0, 0,    0,    0};
    exif.insert(exif.end(), tiff.begin(), tiff.end());
    return exif;
}

JpegBytes with_exif_orientation(const JpegBytes& jpeg, std::uint8_t orientation, bool big_endian) {
    return with_app1(jpeg, exif_with_orientation(orientation, big_endian));
}

TEST(JpegDecode, ExifOrientationsDecodeAsOpenCvTurnsThem) {
    JpegBytes plain;
    ASSERT_TRUE(cv::imencode(".jpg", dog_crop(), plain));
    for (const bool big_endian : {false, true}) {
        for (const std::uint8_t orientation : {1, 2, 3, 6, 8}) {
            const JpegBytes bytes = with_exif_orientation(plain, orientation, big_endian);
            expect_decodes_as_opencv(bytes,
                                     "orientation " + std::to_string(orientation) +
                                         (big_endian ? " (big-endian Exif)" : " (little-endian Exif)"));
        }
    }
    // Cameras write Exif, then XMP, each in an APP1 segment; a second Exif block is odd but possible.
    const std::string xmp_text = "http://ns.adobe.com/xap/1.0/";
    const JpegBytes xmp(xmp_text.begin(), xmp_text.end() + 1);
    expect_decodes_as_opencv(with_app1(with_exif_orientation(plain, 1, false), xmp), "Exif, then XMP");
    expect_decodes_as_opencv(with_app1(with_exif_orientation(plain, 6, false), xmp), "Exif turned, then XMP");
    expect_decodes_as_opencv(
        with_app1(with_exif_orientation(plain, 6, false), exif_with_orientation(1, false)),
        "Exif upright, then Exif turned");
    expect_decodes_as_opencv(
        with_app1(with_exif_orientation(plain, 1, false), exif_with_orientation(6, false)),
        "Exif turned, then Exif upright");
    expect_decodes_as_opencv(with_app1(plain, xmp), "XMP alone");
    // Orientation 6 turns the 333x251 crop upright: OpenCV's path must have been taken.
    const JpegBytes turned = with_exif_orientation(plain, 6, false);
    EXPECT_EQ(decode_rgb_pixels(turned.data(), turned.size(), "turned").width, 251);
}

// load_image of a file OpenCV turns: cv::imread's pixels, turned as imread turns them.
TEST(JpegDecode, AFileTurnedByExifLoadsAsImreadReadsIt) {
    JpegBytes encoded;
    cv::Mat wide(20, 40, CV_8UC3, cv::Scalar(10, 20, 30));
    wide(cv::Rect(0, 0, 10, 20)).setTo(cv::Scalar(200, 100, 50));
    ASSERT_TRUE(cv::imencode(".jpg", wide, encoded));
    const JpegBytes turned = with_exif_orientation(encoded, 6, false);
    const std::string path = test::scratch_dir("image_exif") + "/rotated.jpg";
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(turned.data()), static_cast<std::streamsize>(turned.size()));
    const Image reference = image_from_bgr(cv::imread(path, cv::IMREAD_COLOR));
    ASSERT_EQ(reference.w, 20) << "imread turns by the Exif orientation";
    const Image loaded = load_image(path);
    EXPECT_EQ(loaded.w, reference.w);
    EXPECT_EQ(loaded.h, reference.h);
    EXPECT_EQ(loaded.data, reference.data);
}

// A damaged JPEG keeps what OpenCV's suspending reader decodes of it, not what a one-pass decoder
// filling the missing data would give.
TEST(JpegDecode, DamagedJpegsDecodeToOpenCvsPartialPixels) {
    JpegBytes plain;
    ASSERT_TRUE(cv::imencode(".jpg", dog_crop(), plain));
    expect_decodes_as_opencv(JpegBytes(plain.begin(), plain.begin() + plain.size() / 2), "truncated");
    JpegBytes corrupt = plain;
    for (std::size_t i = 0; i < 512; ++i)
        corrupt[corrupt.size() / 2 + i] = static_cast<std::uint8_t>((i * 37) % 251);
    expect_decodes_as_opencv(corrupt, "corrupt scan");
}

}  // namespace
}  // namespace fpgacnn

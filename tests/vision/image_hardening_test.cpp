// Bad image inputs: a FIFO is refused instead of blocking, an image too large for the pixel cap or
// the memory budget is refused from its header (before gigabytes are allocated), a damaged JPEG is
// flagged, and decoding from bytes gives exactly cv::imread's pixels.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include "error_message.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "test_paths.hpp"

namespace fpgacnn {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string write_bytes(const std::string& path, const Bytes& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path;
}

using test::error_message;

void put_be32(Bytes& bytes, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
}

// A PNG signature and IHDR chunk claiming width x height (8-bit RGB), and nothing else.
Bytes png_header(std::uint32_t width, std::uint32_t height) {
    Bytes bytes = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    bytes.resize(bytes.size() + 17, 0);
    put_be32(bytes, 16, width);
    put_be32(bytes, 20, height);
    bytes[24] = 8;  // bit depth
    bytes[25] = 2;  // RGB
    return bytes;
}

class ScopedMemoryLimit {
public:
    explicit ScopedMemoryLimit(const char* value) { ::setenv("FPGACNN_MEMORY_LIMIT", value, 1); }
    ~ScopedMemoryLimit() { ::unsetenv("FPGACNN_MEMORY_LIMIT"); }
    ScopedMemoryLimit(const ScopedMemoryLimit&) = delete;
    ScopedMemoryLimit& operator=(const ScopedMemoryLimit&) = delete;
};

TEST(ImageHardening, AFifoIsRefusedWithoutBlocking) {
    const std::string fifo = test::scratch_dir("image_fifo") + "/camera.jpg";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto result = std::async(std::launch::async, [&] { return error_message([&] { load_image(fifo); }); });
    if (result.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
        const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // wakes the blocked reader
        if (writer >= 0) ::close(writer);
        ADD_FAILURE() << "load_image blocked on a FIFO";
    }
    const std::string message = result.get();
    EXPECT_NE(message.find(fifo + ": the image file is not a regular file"), std::string::npos) << message;
    EXPECT_NE(message.find("FIFO"), std::string::npos) << message;
}

TEST(ImageHardening, ClassNamesFromADeviceAreRefused) {
    const std::string message = error_message([] { load_class_names("/dev/zero"); });
    EXPECT_NE(message.find("/dev/zero: the class names file is not a regular file"), std::string::npos)
        << message;
}

TEST(ImageHardening, AnImageAboveTheMemoryBudgetIsRefusedFromItsHeader) {
    const ScopedMemoryLimit limit("1G");
    const std::string path =
        write_bytes(test::scratch_dir("image_budget") + "/huge.png", png_header(30000, 30000));
    const std::string message = error_message([&] { load_image(path); });
    EXPECT_NE(message.find(path + " (30000x30000) needs 12.6 GiB"), std::string::npos) << message;
    EXPECT_NE(message.find("only 1.0 GiB are available (FPGACNN_MEMORY_LIMIT=1G)"), std::string::npos)
        << message;
}

// The same image under an address-space limit (ulimit -v) and no FPGACNN_MEMORY_LIMIT: MemAvailable may
// be large, but an allocation past the limit would end in std::bad_alloc ("unexpected failure"), so the
// budget counts what is left of the limit and refuses the image from its header, naming what it needs.
// In a child process (the limit is the process's); the 30000x30000 image is never allocated.
TEST(ImageHardening, AnImageAboveTheAddressSpaceLimitIsRefusedFromItsHeader) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(FPGACNN_SANITIZED)
    GTEST_SKIP() << "sanitizers reserve terabytes of address space: an address-space limit breaks them";
#else
    const std::string path =
        write_bytes(test::scratch_dir("image_address_space") + "/huge.png", png_header(30000, 30000));
    int channel[2];
    ASSERT_EQ(pipe(channel), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        close(channel[0]);
        unsetenv("FPGACNN_MEMORY_LIMIT");
        rlimit limit{};
        getrlimit(RLIMIT_AS, &limit);
        limit.rlim_cur = rlim_t{4} << 30;  // 4 GiB of address space in all (this process uses far less)
        std::string message = setrlimit(RLIMIT_AS, &limit) == 0 ? "" : "setrlimit failed";
        if (message.empty()) message = error_message([&] { load_image(path); });
        (void)!write(channel[1], message.data(), message.size());
        _exit(0);
    }
    close(channel[1]);
    std::string message;
    char buffer[512];
    for (ssize_t n; (n = read(channel[0], buffer, sizeof buffer)) > 0;)
        message.append(buffer, static_cast<std::size_t>(n));
    close(channel[0]);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << message;
    EXPECT_NE(message.find(path + " (30000x30000) needs 12.6 GiB"), std::string::npos) << message;
    EXPECT_NE(message.find("(what is left of the address-space limit, ulimit -v)"), std::string::npos)
        << message;
#endif
}

TEST(ImageHardening, AnImageAboveThePixelCapIsRefusedFromItsHeader) {
    const std::string dir = test::scratch_dir("image_pixel_cap");
    const std::string png = write_bytes(dir + "/wide.png", png_header(0x7fffffff, 2));
    EXPECT_NE(
        error_message([&] { load_image(png); }).find("4294967294 pixels, more than the limit of 1073741824"),
        std::string::npos);
    // BMP: 40000 wide, -40000 high (top-down rows).
    Bytes bmp(54, 0);
    bmp[0] = 'B';
    bmp[1] = 'M';
    bmp[14] = 40;  // BITMAPINFOHEADER
    for (int i = 0; i < 4; ++i) {
        bmp[18 + i] = static_cast<std::uint8_t>(40000u >> (8 * i));
        bmp[22 + i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(-40000) >> (8 * i));
    }
    const std::string bmp_path = write_bytes(dir + "/tall.bmp", bmp);
    EXPECT_NE(error_message([&] { load_image(bmp_path); }).find("40000x40000 = 1600000000 pixels"),
              std::string::npos);
}

TEST(ImageHardening, DecodingBytesGivesImreadsPixels) {
    for (const char* name : {"data/dog.jpg", "data/eagle.jpg", "data/horses.jpg"}) {
        const std::string path = test::darknet_file(name);
        const Bytes bytes = read_bytes(path);
        const Image decoded = decode_image(bytes.data(), bytes.size(), path);
        const Image reference = image_from_bgr(cv::imread(path, cv::IMREAD_COLOR));
        EXPECT_EQ(decoded.w, reference.w) << name;
        EXPECT_EQ(decoded.data, reference.data) << name;
        EXPECT_FALSE(decoded.damaged) << name << ": " << decoded.damage;
    }
}

// The pixels a server decodes a request's file into: decode_image's, as 8-bit RGB.
TEST(ImageHardening, DecodingBytesToRgbPixelsGivesDecodeImagesValues) {
    for (const char* name : {"data/dog.jpg", "data/giraffe.jpg"}) {
        const std::string path = test::darknet_file(name);
        const Bytes bytes = read_bytes(path);
        const RgbPixels pixels = decode_rgb_pixels(bytes.data(), bytes.size(), path);
        const Image decoded = decode_image(bytes.data(), bytes.size(), path);
        ASSERT_EQ(pixels.width, decoded.w) << name;
        ASSERT_EQ(pixels.height, decoded.h) << name;
        EXPECT_EQ(image_from_rgb(pixels.data.data(), pixels.width, pixels.height).data, decoded.data) << name;
    }
    const Bytes garbage(64, 7);
    const std::string message =
        error_message([&] { decode_rgb_pixels(garbage.data(), garbage.size(), "upload 3"); });
    EXPECT_NE(message.find("upload 3: not a JPEG, PNG"), std::string::npos) << message;
}

TEST(ImageHardening, ATruncatedJpegIsFlaggedDamaged) {
    const Bytes dog = read_bytes(test::darknet_file("data/dog.jpg"));
    const std::string path = write_bytes(test::scratch_dir("image_truncated") + "/cut.jpg",
                                         Bytes(dog.begin(), dog.begin() + dog.size() * 6 / 10));
    const Image image = load_image(path);
    EXPECT_EQ(image.w, 768);
    EXPECT_TRUE(image.damaged);
    EXPECT_NE(image.damage.find("Premature end of JPEG file"), std::string::npos) << image.damage;
}

TEST(ImageHardening, AJpegWithACorruptScanIsFlaggedDamaged) {
    Bytes dog = read_bytes(test::darknet_file("data/dog.jpg"));
    // Overwrite 2 KB in the middle of the entropy-coded data with a fixed byte pattern (no 0xFF, so
    // no marker is created: only the Huffman decoder can notice).
    for (std::size_t i = 0; i < 2048; ++i)
        dog[dog.size() / 2 + i] = static_cast<std::uint8_t>((i * 37) % 251);
    const std::string path = write_bytes(test::scratch_dir("image_corrupt_scan") + "/scan.jpg", dog);
    const Image image = load_image(path);
    EXPECT_TRUE(image.damaged);
    EXPECT_NE(image.damage.find("Corrupt JPEG data"), std::string::npos) << image.damage;
}

// Found by fuzz_image: OpenCV (Debian's, built with GDCM) sniffs "DICM" at byte 128 as DICOM, and
// GDCM's reader asserts on this file, aborting the whole process. Only JPEG, PNG, BMP, PNM and WebP
// reach OpenCV now.
TEST(ImageHardening, FormatsOutsideTheSupportedOnesAreRefusedBeforeOpenCv) {
    const std::string dicom = test::source_dir() + "/tests/vision/data/gdcm-abort.bin";
    const std::string message = error_message([&] { load_image(dicom); });
    EXPECT_NE(message.find(dicom + ": not a JPEG, PNG, BMP, PNM or WebP image"), std::string::npos)
        << message;
    Bytes tiff;
    ASSERT_TRUE(cv::imencode(".tiff", cv::Mat(4, 4, CV_8UC3, cv::Scalar(1, 2, 3)), tiff));
    EXPECT_NE(
        error_message([&] { decode_image(tiff.data(), tiff.size(), "a.tiff"); }).find("convert the image"),
        std::string::npos);
    Bytes png;
    ASSERT_TRUE(cv::imencode(".png", cv::Mat(4, 4, CV_8UC3, cv::Scalar(1, 2, 3)), png));
    EXPECT_EQ(decode_image(png.data(), png.size(), "a.png").w, 4);
}

// Every supported format's size is read from its header as OpenCV's decoder reads it: WebP's three
// chunk kinds (checked against OpenCV's own encoder), BMP's OS/2 core header (16-bit sizes), PNM
// numbers with leading zeros and a comment ended by '\r'.
TEST(ImageHardening, EveryFormatsSizeIsReadFromItsHeader) {
    const cv::Mat pixels(5, 7, CV_8UC3, cv::Scalar(10, 20, 30));
    for (const int quality : {80, 101}) {  // 101: lossless (VP8L)
        Bytes webp;
        ASSERT_TRUE(cv::imencode(".webp", pixels, webp, {cv::IMWRITE_WEBP_QUALITY, quality}));
        const Image image = decode_image(webp.data(), webp.size(), "a.webp");
        EXPECT_EQ(image.w, 7);
        EXPECT_EQ(image.h, 5);
    }
    const ScopedMemoryLimit limit("1G");
    // VP8X (extended WebP): canvas 20000x20000 (stored minus one, 24 bits little-endian).
    Bytes vp8x = {'R', 'I', 'F', 'F', 22, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'X', 10, 0, 0, 0};
    vp8x.resize(30, 0);
    for (const std::size_t at : {24u, 27u}) {
        vp8x[at] = static_cast<std::uint8_t>(19999 & 0xFF);
        vp8x[at + 1] = static_cast<std::uint8_t>(19999 >> 8);
    }
    EXPECT_NE(error_message([&] {
                  decode_image(vp8x.data(), vp8x.size(), "x.webp");
              }).find("x.webp (20000x20000) needs"),
              std::string::npos);
    // OS/2 BMP: a 12-byte core header with 16-bit sizes, 30000x30000.
    Bytes core(26, 0);
    core[0] = 'B';
    core[1] = 'M';
    core[14] = 12;
    core[18] = core[20] = 0x30;
    core[19] = core[21] = 0x75;
    EXPECT_NE(error_message([&] {
                  decode_image(core.data(), core.size(), "c.bmp");
              }).find("c.bmp (30000x30000) needs"),
              std::string::npos);
    const std::string pnm = "P6 #comment\r0000000000020000\v20000\n255\n";
    const auto* pnm_bytes = reinterpret_cast<const std::uint8_t*>(pnm.data());
    EXPECT_NE(error_message([&] {
                  decode_image(pnm_bytes, pnm.size(), "p.ppm");
              }).find("p.ppm (20000x20000) needs"),
              std::string::npos);
}

// Found by fuzz_image (an out-of-memory: a 2.2 GB allocation inside OpenCV): a file whose header
// gave no size was decoded unchecked, at whatever size the decoder read. Now it is refused.
TEST(ImageHardening, AFileWithoutAReadableSizeIsRefusedBeforeDecoding) {
    Bytes riff = {'R', 'I', 'F', 'F', 22, 0, 0, 0, 'W', 'E', 'B', 'P', 'A', 'B', 'C', 'D', 10, 0, 0, 0};
    riff.resize(40, 0);
    EXPECT_NE(error_message([&] {
                  decode_image(riff.data(), riff.size(), "r.webp");
              }).find("r.webp: cannot read the image size from its WebP header"),
              std::string::npos);
    Bytes bmp = {'B', 'M'};
    bmp.resize(54, 0);
    bmp[14] = 20;  // no header of that size exists
    EXPECT_NE(error_message([&] {
                  decode_image(bmp.data(), bmp.size(), "b.bmp");
              }).find("b.bmp: cannot read the image size from its BMP header"),
              std::string::npos);
}

// Found by fuzz_image (a 10-second "timeout"): 244 bytes declaring a 12056x14895 progressive frame
// after garbage bytes, which libjpeg skips. The header check stopped at the garbage, so the 180
// megapixels were decoded before any limit applied. The check now skips garbage as libjpeg does.
TEST(ImageHardening, TheHeaderCheckFindsTheFrameAfterGarbageBytes) {
    const ScopedMemoryLimit limit("1G");
    const std::string bomb = test::source_dir() + "/tests/vision/data/jpeg-bomb-after-garbage.jpg";
    const std::string message = error_message([&] { load_image(bomb); });
    EXPECT_NE(message.find(bomb + " (12056x14895) needs 2.5 GiB"), std::string::npos) << message;
}

}  // namespace
}  // namespace fpgacnn

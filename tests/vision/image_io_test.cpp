#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "test_paths.hpp"

namespace fpgacnn {
namespace {

std::string error_message_of(const std::string& path) {
    try {
        load_image(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error thrown)";
}

TEST(LoadImage, DogJpgIsRgbPlanarOverTwoHundredFiftyFive) {
    const std::string path = test::darknet_file("data/dog.jpg");
    const Image image = load_image(path);
    ASSERT_EQ(image.w, 768);
    ASSERT_EQ(image.h, 576);
    ASSERT_EQ(image.c, 3);
    ASSERT_EQ(image.data.size(), 768u * 576u * 3u);
    for (float v : image.data) {
        ASSERT_GE(v, 0.0f);
        ASSERT_LE(v, 1.0f);
    }
    const cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty());
    for (const cv::Point& p :
         {cv::Point(0, 0), cv::Point(767, 0), cv::Point(300, 400), cv::Point(767, 575)}) {
        const cv::Vec3b px = bgr.at<cv::Vec3b>(p);
        EXPECT_EQ(image.at(p.x, p.y, 0), static_cast<float>(px[2] / 255.)) << "red at " << p;
        EXPECT_EQ(image.at(p.x, p.y, 1), static_cast<float>(px[1] / 255.)) << "green at " << p;
        EXPECT_EQ(image.at(p.x, p.y, 2), static_cast<float>(px[0] / 255.)) << "blue at " << p;
    }
}

TEST(LoadImage, MissingFileNamesThePath) {
    const std::string path = test::scratch_dir("vision_missing") + "/no-such-image.jpg";
    const std::string message = error_message_of(path);
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
}

TEST(LoadImage, DirectoryIsRejected) {
    const std::string dir = test::scratch_dir("vision_directory");
    EXPECT_NE(error_message_of(dir).find(dir), std::string::npos);
}

TEST(LoadImage, CorruptFileNamesThePath) {
    const std::string path = test::scratch_dir("vision_corrupt") + "/garbage.jpg";
    {
        std::ofstream out(path, std::ios::binary);
        out << "this is not an image \x01\x02\x03\xff\xd8 at all";
    }
    const std::string message = error_message_of(path);
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("decode"), std::string::npos) << message;
}

TEST(ImageFromBgr, SwapsToRgbPlanes) {
    cv::Mat bgr(2, 3, CV_8UC3, cv::Scalar(10, 20, 30));  // B=10, G=20, R=30
    bgr.at<cv::Vec3b>(1, 2) = cv::Vec3b(255, 0, 128);
    const Image image = image_from_bgr(bgr);
    ASSERT_EQ(image.w, 3);
    ASSERT_EQ(image.h, 2);
    ASSERT_EQ(image.c, 3);
    EXPECT_EQ(image.at(0, 0, 0), static_cast<float>(30 / 255.));
    EXPECT_EQ(image.at(0, 0, 1), static_cast<float>(20 / 255.));
    EXPECT_EQ(image.at(0, 0, 2), static_cast<float>(10 / 255.));
    EXPECT_EQ(image.at(2, 1, 0), static_cast<float>(128 / 255.));
    EXPECT_EQ(image.at(2, 1, 1), 0.0f);
    EXPECT_EQ(image.at(2, 1, 2), 1.0f);
}

TEST(ImageFromBgr, HonoursRowStepOfRoiViews) {
    cv::Mat big(10, 10, CV_8UC3);
    cv::randu(big, cv::Scalar::all(0), cv::Scalar::all(256));
    const cv::Mat roi = big(cv::Rect(2, 3, 5, 4));
    ASSERT_FALSE(roi.isContinuous());
    EXPECT_EQ(image_from_bgr(roi).data, image_from_bgr(roi.clone()).data);
}

// Every 8-bit value in every channel: each converts as darknet's double division by 255. does.
TEST(ImageFromBgr, EveryByteValueConvertsAsDarknetsDivision) {
    cv::Mat bgr(1, 256, CV_8UC3);
    for (int v = 0; v < 256; ++v) bgr.at<cv::Vec3b>(0, v) = cv::Vec3b(v, (v + 85) % 256, (v + 170) % 256);
    const Image image = image_from_bgr(bgr);
    for (int v = 0; v < 256; ++v) {
        ASSERT_EQ(image.at(v, 0, 2), static_cast<float>(v / 255.)) << v;
        ASSERT_EQ(image.at(v, 0, 1), static_cast<float>(((v + 85) % 256) / 255.)) << v;
        ASSERT_EQ(image.at(v, 0, 0), static_cast<float>(((v + 170) % 256) / 255.)) << v;
    }
}

// An inference request's UINT8 [H, W, 3] RGB tensor gives the Image of the same pixels in BGR.
TEST(ImageFromRgb, EqualsImageFromBgrOfTheSamePixels) {
    cv::Mat rgb(7, 5, CV_8UC3);
    cv::randu(rgb, cv::Scalar::all(0), cv::Scalar::all(256));
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    const Image from_rgb = image_from_rgb(rgb.ptr<std::uint8_t>(0), rgb.cols, rgb.rows);
    EXPECT_EQ(from_rgb.w, 5);
    EXPECT_EQ(from_rgb.h, 7);
    EXPECT_EQ(from_rgb.data, image_from_bgr(bgr).data);
    EXPECT_THROW(image_from_rgb(nullptr, 5, 7), Error);
    EXPECT_THROW(image_from_rgb(rgb.ptr<std::uint8_t>(0), 0, 7), Error);
}

// The camera's and video's path into the detector: the same values as image_from_bgr once converted,
// from a full frame and from an ROI view (whose rows are not contiguous).
TEST(RgbPixelsFromBgr, ConvertsAsImageFromBgrDoes) {
    cv::Mat frame(37, 53, CV_8UC3);
    cv::randu(frame, cv::Scalar::all(0), cv::Scalar::all(256));
    for (const cv::Mat& bgr : {frame, frame(cv::Rect(5, 3, 31, 22))}) {
        const RgbPixels pixels = rgb_pixels_from_bgr(bgr);
        ASSERT_EQ(pixels.width, bgr.cols);
        ASSERT_EQ(pixels.height, bgr.rows);
        ASSERT_EQ(pixels.data.size(), static_cast<std::size_t>(bgr.cols * bgr.rows * 3));
        EXPECT_EQ(pixels.data[0], bgr.at<cv::Vec3b>(0, 0)[2]) << "red first";
        const Image expected = image_from_bgr(bgr);
        const Image actual = image_from_rgb(pixels.data.data(), pixels.width, pixels.height);
        EXPECT_EQ(actual.data, expected.data);
    }
    EXPECT_THROW(rgb_pixels_from_bgr(cv::Mat()), Error);
    EXPECT_THROW(rgb_pixels_from_bgr(cv::Mat(4, 4, CV_8UC1)), Error);
}

TEST(ImageFromBgr, RejectsOtherTypes) {
    EXPECT_THROW(image_from_bgr(cv::Mat(4, 4, CV_8UC1, cv::Scalar(0))), Error);
    EXPECT_THROW(image_from_bgr(cv::Mat(4, 4, CV_32FC3, cv::Scalar(0))), Error);
    EXPECT_THROW(image_from_bgr(cv::Mat()), Error);
}

}  // namespace
}  // namespace fpgacnn

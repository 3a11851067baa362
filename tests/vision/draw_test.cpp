#include <gtest/gtest.h>

#include <opencv2/core.hpp>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {
namespace {

Detection make_detection(int class_id, int left, int top, int right, int bottom) {
    Detection d;
    d.class_id = class_id;
    d.class_name = "dog";
    d.prob = 0.87f;
    d.left = left;
    d.top = top;
    d.right = right;
    d.bottom = bottom;
    return d;
}

TEST(DrawDetections, DrawsTheBoxInTheClassColour) {
    cv::Mat image(200, 200, CV_8UC3, cv::Scalar(0, 0, 0));
    draw_detections(image, {make_detection(0, 20, 60, 120, 180)}, 20);
    // Class 0 sits at the start of darknet's palette: magenta (BGR 255, 0, 255).
    EXPECT_EQ(image.at<cv::Vec3b>(120, 20), cv::Vec3b(255, 0, 255));   // left edge
    EXPECT_EQ(image.at<cv::Vec3b>(120, 120), cv::Vec3b(255, 0, 255));  // right edge
    EXPECT_EQ(image.at<cv::Vec3b>(180, 70), cv::Vec3b(255, 0, 255));   // bottom edge
    EXPECT_EQ(image.at<cv::Vec3b>(120, 70), cv::Vec3b(0, 0, 0));       // inside stays untouched
    EXPECT_EQ(image.at<cv::Vec3b>(10, 190), cv::Vec3b(0, 0, 0));       // far away too
    // The label background sits just above the box.
    EXPECT_EQ(image.at<cv::Vec3b>(59, 21), cv::Vec3b(255, 0, 255));
}

TEST(DrawDetections, DifferentClassesGetDifferentColours) {
    cv::Mat image(100, 100, CV_8UC3, cv::Scalar(0, 0, 0));
    draw_detections(image, {make_detection(0, 10, 40, 40, 90), make_detection(7, 60, 40, 90, 90)}, 20);
    EXPECT_NE(image.at<cv::Vec3b>(60, 10), image.at<cv::Vec3b>(60, 60));
}

TEST(DrawDetections, ToleratesBoxesOutsideTheImage) {
    cv::Mat image(50, 50, CV_8UC3, cv::Scalar(0, 0, 0));
    EXPECT_NO_THROW(draw_detections(image, {make_detection(3, -10, -10, 500, 500)}));
}

TEST(DrawDetections, RejectsNonBgrImages) {
    cv::Mat gray(10, 10, CV_8UC1, cv::Scalar(0));
    EXPECT_THROW(draw_detections(gray, {}), Error);
    cv::Mat empty;
    EXPECT_THROW(draw_detections(empty, {}), Error);
}

}  // namespace
}  // namespace fpgacnn

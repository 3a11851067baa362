// Pre-processing: fpgacnn's load_image / resize_image / letterbox_image against darknet's own, on the
// same files. Both decode with the same OpenCV, so the pixels must agree to float rounding.
#include <gtest/gtest.h>

#include <iostream>
#include <tuple>

#include "darknet_reference.hpp"
#include "fpgacnn/vision.hpp"
#include "image_bridge.hpp"
#include "tensor_diff.hpp"
#include "test_paths.hpp"

namespace fpgacnn::crosscheck {
namespace {

constexpr double kPixelTolerance = 1e-6;

void expect_same_image(const std::string& what, const Image& ours, const ReferenceImage& reference) {
    ASSERT_EQ(ours.w, reference.w);
    ASSERT_EQ(ours.h, reference.h);
    ASSERT_EQ(ours.c, reference.c);
    ASSERT_EQ(ours.data.size(), reference.data.size());
    const TensorDiff diff = compare_tensors(ours.data, reference.data);
    EXPECT_LE(diff.max_abs_diff, kPixelTolerance) << describe(diff);
    std::cout << "[ measured ] " << what << " " << ours.w << "x" << ours.h << ": max |diff| "
              << diff.max_abs_diff << "\n";
}

class ImageLoadingCrosscheck : public testing::TestWithParam<std::string> {
protected:
    std::string path() const { return test::darknet_file("data/" + GetParam()); }
};

TEST_P(ImageLoadingCrosscheck, LoadImageMatchesLoadImageColor) {
    expect_same_image("load_image " + GetParam(), load_image(path()), darknet_load_image_color(path()));
}

// Odd sizes in both directions exercise both passes of darknet's two-pass bilinear resize.
TEST_P(ImageLoadingCrosscheck, ResizeImageMatchesDarknet) {
    const Image ours = load_image(path());
    const ReferenceImage reference = to_reference_image(ours);
    expect_same_image("resize_image " + GetParam(), resize_image(ours, 333, 211),
                      darknet_resize_image(reference, 333, 211));
    expect_same_image("resize_image " + GetParam(), resize_image(ours, 1001, 777),
                      darknet_resize_image(reference, 1001, 777));
}

std::string stem(const std::string& file) { return file.substr(0, file.find('.')); }

std::string image_case_name(const testing::TestParamInfo<std::string>& case_info) {
    return stem(case_info.param);
}

INSTANTIATE_TEST_SUITE_P(SampleImages, ImageLoadingCrosscheck,
                         testing::Values("dog.jpg", "person.jpg", "horses.jpg", "eagle.jpg"),
                         image_case_name);

using LetterboxCase = std::tuple<std::string, int, int>;  // image, network width, height

class LetterboxCrosscheck : public testing::TestWithParam<LetterboxCase> {};

// The full chain each side runs before the network: decode + letterbox, independently on each side.
TEST_P(LetterboxCrosscheck, LetterboxOfLoadedImageMatchesDarknet) {
    const auto& [image, w, h] = GetParam();
    const std::string path = test::darknet_file("data/" + image);
    const Image ours = letterbox_image(load_image(path), w, h);
    expect_same_image("letterbox_image " + image, ours,
                      darknet_letterbox_image(darknet_load_image_color(path), w, h));
}

std::string letterbox_case_name(const testing::TestParamInfo<LetterboxCase>& case_info) {
    const auto& [image, w, h] = case_info.param;
    return stem(image) + "_" + std::to_string(w) + "x" + std::to_string(h);
}

INSTANTIATE_TEST_SUITE_P(NetworkSizes, LetterboxCrosscheck,
                         testing::Combine(testing::Values("dog.jpg", "person.jpg"), testing::Values(224, 416),
                                          testing::Values(224, 416)),
                         letterbox_case_name);

}  // namespace
}  // namespace fpgacnn::crosscheck

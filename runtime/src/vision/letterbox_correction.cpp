// darknet's correct_region_boxes / correct_yolo_boxes (the same arithmetic in both), relative=1.
#include "fpgacnn/vision.hpp"
#include "vision/fast_math.hpp"
#include "vision/letterbox_geometry.hpp"

namespace fpgacnn::vision_detail {

// darknet's correct_region_boxes with relative=1: undo the letterbox so the box is relative to the
// original image. Its C source divides; but darknet is built with -Ofast (its Makefile's OPTS, kept
// by Debian), and GCC turns the divisions into multiplications by reciprocals: 1.0/scale in double
// for x and y, and for w and h an approximate float reciprocal refined by one Newton step
// (see fast_math_reciprocal). Reproducing that keeps the boxes bit-identical to libdarknet's.
void correct_for_letterbox(std::vector<RegionBox>& boxes, int image_w, int image_h, int net_w, int net_h) {
    const vision_detail::LetterboxSize inner = vision_detail::letterbox_size(image_w, image_h, net_w, net_h);
    const float x_scale = static_cast<float>(inner.w) / static_cast<float>(net_w);
    const float y_scale = static_cast<float>(inner.h) / static_cast<float>(net_h);
    const double x_shift = (net_w - inner.w) / 2. / net_w;
    const double y_shift = (net_h - inner.h) / 2. / net_h;
    const double x_factor = 1.0 / static_cast<double>(x_scale);
    const double y_factor = 1.0 / static_cast<double>(y_scale);
    const float w_factor =
        static_cast<float>(net_w) * vision_detail::fast_math_reciprocal(static_cast<float>(inner.w));
    const float h_factor =
        static_cast<float>(net_h) * vision_detail::fast_math_reciprocal(static_cast<float>(inner.h));
    for (RegionBox& box : boxes) {
        Box& b = box.bbox;
        b.x = static_cast<float>((static_cast<double>(b.x) - x_shift) * x_factor);
        b.y = static_cast<float>((static_cast<double>(b.y) - y_shift) * y_factor);
        b.w *= w_factor;
        b.h *= h_factor;
    }
}

}  // namespace fpgacnn::vision_detail

// Result drawing in darknet's style: a box per detection in a per-class colour from darknet's
// palette, line width h*0.006, and a label on a filled background just above the box.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

namespace {

// darknet's image.c palette: magenta, blue, cyan, green, yellow, red, interpolated.
constexpr float kPalette[6][3] = {{1, 0, 1}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}};

// darknet's get_color(c, x, max).
float palette_component(int component, int x, int max) {
    float ratio = (static_cast<float>(x) / static_cast<float>(max)) * 5;
    const int i = static_cast<int>(std::floor(ratio));
    const int j = static_cast<int>(std::ceil(ratio));
    ratio -= static_cast<float>(i);
    return (1 - ratio) * kPalette[i][component] + ratio * kPalette[j][component];
}

// darknet scatters neighbouring class ids across the palette with offset = class*123457 % classes,
// and (as in its draw_detections) takes red from component 2 and blue from component 0.
cv::Scalar class_colour_bgr(int class_id, int classes) {
    const int offset = static_cast<int>(static_cast<std::int64_t>(class_id) * 123457 % classes);
    const float red = palette_component(2, offset, classes);
    const float green = palette_component(1, offset, classes);
    const float blue = palette_component(0, offset, classes);
    return cv::Scalar(blue * 255.0, green * 255.0, red * 255.0);
}

std::string label_text(const Detection& d) {
    return d.class_name + " " + std::to_string(static_cast<int>(std::lround(d.prob * 100))) + "%";
}

}  // namespace

void draw_detections(cv::Mat& bgr, const std::vector<Detection>& detections, int classes) {
    if (bgr.empty() || bgr.type() != CV_8UC3) {
        throw Error("draw_detections: expected a non-empty 8-bit BGR image (CV_8UC3), got " +
                    (bgr.empty() ? std::string("an empty one") : cv::typeToString(bgr.type())));
    }
    int palette_size = classes > 0 ? classes : 80;  // 80: COCO, darknet's usual class count
    for (const Detection& d : detections) palette_size = std::max(palette_size, d.class_id + 1);

    const int line_width = std::max(1, static_cast<int>(bgr.rows * .006));
    const double font_scale = std::max(0.35, bgr.rows * 0.0012);
    const int font_thickness = std::max(1, line_width / 2);
    const int font = cv::FONT_HERSHEY_SIMPLEX;

    for (const Detection& d : detections) {
        const cv::Scalar colour = class_colour_bgr(std::max(d.class_id, 0), palette_size);
        const int left = std::clamp(d.left, 0, bgr.cols - 1);
        const int right = std::clamp(d.right, 0, bgr.cols - 1);
        const int top = std::clamp(d.top, 0, bgr.rows - 1);
        const int bottom = std::clamp(d.bottom, 0, bgr.rows - 1);
        // darknet draws `width` nested 1-pixel rectangles growing inwards.
        for (int i = 0; i < line_width; ++i) {
            cv::rectangle(bgr, cv::Point(left + i, top + i), cv::Point(right - i, bottom - i), colour, 1);
        }

        const std::string text = label_text(d);
        int baseline = 0;
        const cv::Size text_size = cv::getTextSize(text, font, font_scale, font_thickness, &baseline);
        const int label_h = text_size.height + baseline + 2 * font_thickness;
        const int label_w = text_size.width + 2 * font_thickness;
        // Like darknet's draw_label: above the box when there is room, otherwise inside it.
        int label_top = top + line_width - label_h;
        if (label_top < 0) label_top = top + line_width;
        const cv::Rect label(left, label_top, label_w, label_h);
        cv::rectangle(bgr, label & cv::Rect(0, 0, bgr.cols, bgr.rows), colour, cv::FILLED);
        cv::putText(bgr, text,
                    cv::Point(left + font_thickness, label_top + font_thickness + text_size.height), font,
                    font_scale, cv::Scalar(0, 0, 0), font_thickness, cv::LINE_AA);
    }
}

}  // namespace fpgacnn

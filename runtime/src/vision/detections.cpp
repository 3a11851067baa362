// The detections darknet's draw_detections prints, with the pixel box it draws.
#include <algorithm>
#include <cmath>
#include <string>

#include "fpgacnn/vision.hpp"

namespace fpgacnn {

namespace {

// darknet: `int left = (b.x - b.w/2.)*im.w;` (a double expression truncated toward zero), then
// clamped to the image. Clamping the double first gives the same int and keeps the conversion
// defined for huge or NaN coordinates.
int to_pixel(double value, int size) {
    if (std::isnan(value)) return 0;
    return static_cast<int>(std::clamp(value, 0.0, static_cast<double>(size - 1)));
}

std::string class_name(int class_id, const std::vector<std::string>& names) {
    if (class_id < static_cast<int>(names.size())) return names[class_id];
    return "class_" + std::to_string(class_id);
}

}  // namespace

std::vector<Detection> collect_detections(const std::vector<RegionBox>& boxes, float thresh, int image_w,
                                          int image_h, const std::vector<std::string>& names) {
    std::vector<Detection> detections;
    for (const RegionBox& box : boxes) {
        const Box& b = box.bbox;
        for (std::size_t j = 0; j < box.prob.size(); ++j) {
            if (!(box.prob[j] > thresh)) continue;
            Detection d;
            d.class_id = static_cast<int>(j);
            d.class_name = class_name(d.class_id, names);
            d.prob = box.prob[j];
            d.box = b;
            d.left = to_pixel((b.x - b.w / 2.) * image_w, image_w);
            d.right = to_pixel((b.x + b.w / 2.) * image_w, image_w);
            d.top = to_pixel((b.y - b.h / 2.) * image_h, image_h);
            d.bottom = to_pixel((b.y + b.h / 2.) * image_h, image_h);
            detections.push_back(std::move(d));
        }
    }
    return detections;
}

}  // namespace fpgacnn

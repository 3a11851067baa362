// darknet's get_region_detections followed by correct_region_boxes(relative=1), for the plain
// (non softmax-tree, background=0) region layer of YOLOv2. The float/double mix of darknet's C
// expressions is reproduced on purpose: box coordinates must match darknet to the last bit so that
// the pixel rounding in collect_detections and the NMS decisions agree.
#include <cmath>
#include <cstddef>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "vision/fast_math.hpp"
#include "vision/letterbox_geometry.hpp"

namespace fpgacnn {

namespace {

void require_consistent(const RegionParams& region, const TensorShape& shape) {
    const std::string where = "decode_region: ";
    if (region.num <= 0 || region.classes <= 0 || region.coords < 4) {
        throw Error(where + "the [region] layer needs num > 0, classes > 0 and coords >= 4 (got num=" +
                    std::to_string(region.num) + ", classes=" + std::to_string(region.classes) +
                    ", coords=" + std::to_string(region.coords) + ")");
    }
    if (region.anchors.size() != 2 * static_cast<std::size_t>(region.num)) {
        throw Error(where + "the [region] layer has " + std::to_string(region.anchors.size()) +
                    " anchor values but num=" + std::to_string(region.num) + " needs " +
                    std::to_string(2 * region.num) + "; check 'anchors' in the cfg");
    }
    const int per_anchor = region.coords + 1 + region.classes;
    if (shape.w <= 0 || shape.h <= 0 || shape.c != region.num * per_anchor) {
        throw Error(where + "region output shape " + std::to_string(shape.c) + "x" + std::to_string(shape.h) +
                    "x" + std::to_string(shape.w) + " does not match num*(coords+1+classes) = " +
                    std::to_string(region.num * per_anchor) + " channels");
    }
}

// darknet's get_region_box: x, y in float; w, h through double exp() and a double quotient.
Box region_box(const float* predictions, const std::vector<float>& anchors, int n, std::size_t index, int col,
               int row, int w, int h, std::size_t stride) {
    Box b;
    b.x = (static_cast<float>(col) + predictions[index + 0 * stride]) / static_cast<float>(w);
    b.y = (static_cast<float>(row) + predictions[index + 1 * stride]) / static_cast<float>(h);
    b.w = static_cast<float>(std::exp(static_cast<double>(predictions[index + 2 * stride])) *
                             static_cast<double>(anchors[2 * n]) / static_cast<double>(w));
    b.h = static_cast<float>(std::exp(static_cast<double>(predictions[index + 3 * stride])) *
                             static_cast<double>(anchors[2 * n + 1]) / static_cast<double>(h));
    return b;
}

}  // namespace

std::vector<RegionBox> decode_region(const RegionParams& region, const TensorShape& shape,
                                     const float* activated, int image_w, int image_h, int net_w, int net_h,
                                     float thresh) {
    require_consistent(region, shape);
    if (activated == nullptr) throw Error("decode_region: no region output (null buffer)");

    const int w = shape.w;
    const int h = shape.h;
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    const std::size_t per_anchor = static_cast<std::size_t>(region.coords) + 1 + region.classes;

    std::vector<RegionBox> boxes(static_cast<std::size_t>(region.num) * plane);
    for (std::size_t i = 0; i < plane; ++i) {
        const int row = static_cast<int>(i / w);
        const int col = static_cast<int>(i % w);
        for (int n = 0; n < region.num; ++n) {
            // darknet's entry_index(l, 0, n*w*h + i, entry) = n*w*h*per_anchor + entry*w*h + i
            const std::size_t base = static_cast<std::size_t>(n) * plane * per_anchor + i;
            const auto entry = [&](std::size_t e) { return activated[base + e * plane]; };

            RegionBox& box = boxes[static_cast<std::size_t>(n) * plane + i];
            box.prob.assign(region.classes, 0.0f);
            const float scale = entry(region.coords);
            box.bbox = region_box(activated, region.anchors, n, base, col, row, w, h, plane);
            box.objectness = scale > thresh ? scale : 0;
            if (box.objectness == 0) continue;
            for (int j = 0; j < region.classes; ++j) {
                const float prob = scale * entry(region.coords + 1 + j);
                box.prob[j] = prob > thresh ? prob : 0;
            }
        }
    }
    vision_detail::correct_for_letterbox(boxes, image_w, image_h, net_w, net_h);
    return boxes;
}

}  // namespace fpgacnn

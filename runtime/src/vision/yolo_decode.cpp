// darknet's get_yolo_detections followed by correct_yolo_boxes(relative=1), and get_network_boxes over
// every output layer. As in region_decode.cpp, darknet's float/double mix is reproduced on purpose.
#include <cmath>
#include <cstddef>
#include <iterator>
#include <string>

#include "fpgacnn/error.hpp"
#include "fpgacnn/vision.hpp"
#include "vision/letterbox_geometry.hpp"

namespace fpgacnn {

namespace {

void require_consistent(const YoloParams& yolo, const TensorShape& shape) {
    const int heads = static_cast<int>(yolo.mask.size());
    if (heads < 1 || yolo.classes < 1 || yolo.anchors.size() != 2 * static_cast<std::size_t>(yolo.total)) {
        throw Error("decode_yolo: the [yolo] layer needs mask entries, classes > 0 and 2*num anchors (got " +
                    std::to_string(heads) + " mask entries, classes=" + std::to_string(yolo.classes) + ", " +
                    std::to_string(yolo.anchors.size()) +
                    " anchor values for num=" + std::to_string(yolo.total) + ")");
    }
    for (const int anchor : yolo.mask) {
        if (anchor < 0 || anchor >= yolo.total) {
            throw Error("decode_yolo: mask entry " + std::to_string(anchor) +
                        " is not one of num=" + std::to_string(yolo.total) + " anchors");
        }
    }
    if (shape.w <= 0 || shape.h <= 0 || shape.c != heads * (yolo.classes + 5)) {
        throw Error("decode_yolo: yolo output shape " + std::to_string(shape.c) + "x" +
                    std::to_string(shape.h) + "x" + std::to_string(shape.w) +
                    " does not match mask entries*(classes+5) = " +
                    std::to_string(heads * (yolo.classes + 5)) + " channels");
    }
}

}  // namespace

std::vector<RegionBox> decode_yolo(const YoloParams& yolo, const TensorShape& shape, const float* activated,
                                   int image_w, int image_h, int net_w, int net_h, float thresh) {
    require_consistent(yolo, shape);
    if (activated == nullptr) throw Error("decode_yolo: no yolo output (null buffer)");
    if (net_w <= 0 || net_h <= 0) throw Error("decode_yolo: the network input size must be positive");

    const int w = shape.w;
    const int h = shape.h;
    const std::size_t plane = static_cast<std::size_t>(w) * h;
    const std::size_t per_anchor = static_cast<std::size_t>(yolo.classes) + 5;
    std::vector<RegionBox> boxes;
    for (std::size_t i = 0; i < plane; ++i) {
        const int row = static_cast<int>(i / w);
        const int col = static_cast<int>(i % w);
        for (std::size_t n = 0; n < yolo.mask.size(); ++n) {
            const std::size_t base = n * plane * per_anchor + i;
            const auto entry = [&](std::size_t e) { return activated[base + e * plane]; };
            const float objectness = entry(4);
            if (objectness <= thresh) continue;
            // get_yolo_box: x, y in float; w, h through double exp() over the network size in pixels.
            const int anchor = yolo.mask[n];
            RegionBox box;
            box.bbox.x = (static_cast<float>(col) + entry(0)) / static_cast<float>(w);
            box.bbox.y = (static_cast<float>(row) + entry(1)) / static_cast<float>(h);
            box.bbox.w = static_cast<float>(std::exp(static_cast<double>(entry(2))) *
                                            static_cast<double>(yolo.anchors[2 * anchor]) / net_w);
            box.bbox.h = static_cast<float>(std::exp(static_cast<double>(entry(3))) *
                                            static_cast<double>(yolo.anchors[2 * anchor + 1]) / net_h);
            box.objectness = objectness;
            box.prob.assign(yolo.classes, 0.0f);
            for (int j = 0; j < yolo.classes; ++j) {
                const float prob = objectness * entry(5 + static_cast<std::size_t>(j));
                box.prob[j] = prob > thresh ? prob : 0;
            }
            boxes.push_back(std::move(box));
        }
    }
    vision_detail::correct_for_letterbox(boxes, image_w, image_h, net_w, net_h);
    return boxes;
}

std::vector<RegionBox> decode_network_output(const Network& network, const std::vector<float>& output,
                                             int image_w, int image_h, float thresh) {
    if (output.size() != network.detection_output_size()) {
        throw Error(network.cfg_path + ": the detector output has " + std::to_string(output.size()) +
                    " values, the output layers need " + std::to_string(network.detection_output_size()));
    }
    std::vector<RegionBox> boxes;
    std::size_t offset = 0;
    for (const int index : network.output_layer_indices()) {
        const Layer& layer = network.layers[static_cast<std::size_t>(index)];
        const float* data = output.data() + offset;
        std::vector<RegionBox> layer_boxes =
            layer.type == LayerType::Yolo ? decode_yolo(layer.yolo(), layer.output, data, image_w, image_h,
                                                        network.input.w, network.input.h, thresh)
                                          : decode_region(layer.region(), layer.output, data, image_w,
                                                          image_h, network.input.w, network.input.h, thresh);
        boxes.insert(boxes.end(), std::make_move_iterator(layer_boxes.begin()),
                     std::make_move_iterator(layer_boxes.end()));
        offset += layer.output.size();
    }
    return boxes;
}

}  // namespace fpgacnn

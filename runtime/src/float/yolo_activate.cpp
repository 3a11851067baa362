// The CPU half of darknet's forward_yolo_layer (inference only): per mask entry, logistic on the
// x/y planes and on objectness and every class plane; w/h stay raw (get_yolo_box applies exp and
// the anchors). AlexeyAB's scale_x_y (YOLOv4) then stretches x and y around the cell centre.
#include "float/yolo_activate.hpp"

#include <cstddef>
#include <string>

#include "float/darknet_math.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

namespace detail {

void check_yolo_shape(const YoloParams& yolo, const TensorShape& shape) {
    const int entries = 4 + 1 + yolo.classes;
    const int heads = static_cast<int>(yolo.mask.size());
    if (heads < 1 || yolo.classes < 1 || shape.c != heads * entries) {
        throw Error("yolo_activate: " + std::to_string(shape.c) + " input channels do not match " +
                    std::to_string(heads) +
                    " mask entries x (4 + 1 + classes=" + std::to_string(yolo.classes) + ")");
    }
}

void yolo_activate_channels(const YoloParams& yolo, const TensorShape& shape, float* data, int first,
                            int end) {
    const std::size_t plane = static_cast<std::size_t>(shape.w) * shape.h;
    const int entries = 4 + 1 + yolo.classes;
    // scal_add_cpu(ALPHA = s, BETA = -0.5*(s - 1)): BETA is passed as a float, X*ALPHA + BETA in float.
    const float scale = yolo.scale_x_y;
    const auto shift = static_cast<float>(-0.5 * (static_cast<double>(scale) - 1));
    for (int c = first; c < end; ++c) {
        const int entry = c % entries;
        if (entry == 2 || entry == 3) continue;  // w, h
        float* values = data + static_cast<std::size_t>(c) * plane;
        for (std::size_t i = 0; i < plane; ++i) values[i] = darknet_logistic(values[i]);
        if (entry < 2 && scale != 1.0f) {
            for (std::size_t i = 0; i < plane; ++i) values[i] = values[i] * scale + shift;
        }
    }
}

}  // namespace detail

void yolo_activate(const YoloParams& yolo, const TensorShape& shape, float* data) {
    detail::check_yolo_shape(yolo, shape);
    detail::yolo_activate_channels(yolo, shape, data, 0, shape.c);
}

void output_layer_activate(const Layer& layer, float* data) {
    if (layer.type == LayerType::Yolo) {
        yolo_activate(layer.yolo(), layer.output, data);
    } else if (layer.type == LayerType::Region) {
        region_activate(layer.region(), layer.output, data);
    } else if (layer.type == LayerType::Softmax) {
        softmax_activate(layer.softmax(), layer.output, data);
    } else {
        throw Error(std::string("output_layer_activate: layer ") + std::to_string(layer.index) + " is a [" +
                    layer_type_name(layer.type) + "] layer, not [region], [yolo] or [softmax]");
    }
}

}  // namespace fpgacnn

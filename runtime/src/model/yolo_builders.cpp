// The YOLOv3 / YOLOv4 sections: [upsample], [shortcut] and [yolo], with the shapes and defaults of
// darknet's parse_upsample, parse_shortcut and parse_yolo (docs/darknet-semantics.md).
#include <string>

#include "model/layer_builders.hpp"

namespace fpgacnn::model {

namespace {

// darknet reads alpha/beta (shortcut) and scale (upsample) as factors defaulting to 1; other values
// are not implemented here (no published cfg sets them).
void require_unit_factor(SectionReader& reader, const char* key) {
    const float value = reader.real_in_range(key, 1.0f, -1e6f, 1e6f, "");
    if (value != 1.0f) {
        reader.fail(reader.find(key), std::string("option '") + key + "' other than 1 is not implemented",
                    std::string("remove it or set ") + key + "=1");
    }
}

}  // namespace

Layer build_upsample(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Upsample, index, reader, input);
    UpsampleParams upsample;
    upsample.stride = reader.integer("stride", 2);
    if (upsample.stride < 1 || upsample.stride > kMaxKernel) {
        reader.fail(reader.find("stride"),
                    "stride=" + std::to_string(upsample.stride) +
                        (upsample.stride < 0 ? " (a negative stride is darknet's downsampling reverse mode)"
                                             : " is out of range"),
                    "only upsampling by 1.." + std::to_string(kMaxKernel) + " is implemented, e.g. stride=2");
    }
    require_unit_factor(reader, "scale");
    reader.reject_unknown_options();
    layer.output = TensorShape{input.c, input.h * upsample.stride, input.w * upsample.stride};
    layer.params = upsample;
    return layer;
}

Layer build_shortcut(SectionReader& reader, int index, const std::vector<Layer>& earlier,
                     const TensorShape& input) {
    Layer layer = make_layer(LayerType::Shortcut, index, reader, input);
    ShortcutParams shortcut;
    const CfgOption* from_option = reader.find("from");
    if (from_option == nullptr) reader.fail("option 'from' is missing", "add e.g. from=-3");
    const int written = reader.integer("from", 0);
    shortcut.from = written < 0 ? index + written : written;
    if (shortcut.from < 0 || shortcut.from >= index) {
        reader.fail(from_option,
                    "from=" + std::to_string(written) + " refers to layer " + std::to_string(shortcut.from) +
                        ", which is not an earlier layer",
                    "use a negative offset or an index below " + std::to_string(index));
    }
    shortcut.activation = reader.activation(Activation::Linear);
    require_unit_factor(reader, "alpha");
    require_unit_factor(reader, "beta");
    reader.ignore({"weights_type", "weights_normalization"});
    reader.reject_unknown_options();
    // darknet's shortcut_cpu asserts these (stride = w1/w2, sample = w2/w1, the same vertically).
    const TensorShape& added = earlier[static_cast<std::size_t>(shortcut.from)].output;
    if (added.w / input.w != added.h / input.h || input.w / added.w != input.h / added.h) {
        reader.fail(from_option,
                    "layer " + std::to_string(shortcut.from) + " gives " + shape_text(added) +
                        " and the previous layer " + shape_text(input) +
                        ": darknet needs the same size ratio horizontally and vertically",
                    "check 'from'");
    }
    layer.output = input;
    layer.params = shortcut;
    return layer;
}

Layer build_yolo(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer = make_layer(LayerType::Yolo, index, reader, input);
    YoloParams yolo;
    // darknet's defaults: classes 20, num 1, mask 0..num-1.
    yolo.classes = reader.integer_in_range("classes", 20, 1, kMaxFilters, "classes must be a positive count");
    yolo.total = reader.integer_in_range("num", 1, 1, 1024, "num is the anchor count, e.g. num=9");
    yolo.mask = reader.integer_list("mask");
    if (reader.find("mask") == nullptr) {
        for (int n = 0; n < yolo.total; ++n) yolo.mask.push_back(n);
    }
    for (const int anchor : yolo.mask) {
        if (anchor < 0 || anchor >= yolo.total) {
            reader.fail(reader.find("mask"),
                        "mask entry " + std::to_string(anchor) +
                            " is not one of the num=" + std::to_string(yolo.total) + " anchors",
                        "use anchor numbers 0.." + std::to_string(yolo.total - 1));
        }
    }
    yolo.anchors = reader.real_list("anchors");
    // darknet leaves missing anchors at .5; a cfg without them is a mistake.
    if (yolo.anchors.size() != 2 * static_cast<std::size_t>(yolo.total)) {
        const CfgOption* anchors = reader.find("anchors");
        reader.fail(
            anchors,
            (anchors == nullptr ? std::string("option 'anchors' is missing")
                                : "'anchors' has " + std::to_string(yolo.anchors.size()) + " values") +
                " but num=" + std::to_string(yolo.total) + " needs " + std::to_string(2 * yolo.total),
            "give one width,height pair per anchor, in pixels, e.g. anchors=10,14,23,27,...");
    }
    yolo.scale_x_y = reader.real_in_range("scale_x_y", 1.0f, 1.0f, 4.0f,
                                          "scale_x_y is 1 (YOLOv3) or a little above (1.05)");
    reader.require_default("new_coords", 0, "YOLOv4-csp's new_coords decoding is not implemented");
    // Training and AlexeyAB's loss / NMS options; fpgacnn uses darknet's do_nms_sort for every net.
    reader.ignore({"jitter",
                   "ignore_thresh",
                   "truth_thresh",
                   "random",
                   "max",
                   "map",
                   "cls_normalizer",
                   "iou_normalizer",
                   "obj_normalizer",
                   "iou_loss",
                   "iou_thresh",
                   "iou_thresh_kind",
                   "resize",
                   "nms_kind",
                   "beta_nms",
                   "beta1",
                   "label_smooth_eps",
                   "focal_loss",
                   "counters_per_class",
                   "objectness_smooth",
                   "max_delta",
                   "uc_normalizer",
                   "track_history_size",
                   "sim_thresh",
                   "dets_for_track",
                   "dets_for_show",
                   "track_ciou_norm",
                   "embedding_layer"});
    reader.reject_unknown_options();

    const int expected_channels = static_cast<int>(yolo.mask.size()) * (yolo.classes + 4 + 1);
    if (input.c != expected_channels) {
        reader.fail("yolo needs mask entries*(classes+5) = " + std::to_string(yolo.mask.size()) + "*(" +
                        std::to_string(yolo.classes) + "+5) = " + std::to_string(expected_channels) +
                        " input channels, but the previous layer gives " + shape_text(input),
                    "set filters=" + std::to_string(expected_channels) +
                        " in the [convolutional] layer before it, or fix classes/mask");
    }
    layer.output = input;
    layer.params = std::move(yolo);
    return layer;
}

}  // namespace fpgacnn::model

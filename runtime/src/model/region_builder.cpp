#include "model/layer_builders.hpp"

namespace fpgacnn::model {

Layer build_region(SectionReader& reader, int index, const TensorShape& input) {
    Layer layer;
    layer.type = LayerType::Region;
    layer.index = index;
    layer.cfg_line = reader.section().line;
    layer.input = input;
    RegionParams region;
    // darknet's defaults: coords 4, classes 20, num 1, softmax 0.
    region.coords = reader.integer_in_range("coords", 4, 4, 4, "fpgacnn decodes boxes with coords=4 only");
    region.classes =
        reader.integer_in_range("classes", 20, 1, kMaxFilters, "classes must be a positive count");
    region.num = reader.integer_in_range("num", 1, 1, 1024, "num is the anchor count, e.g. num=5");
    region.softmax = reader.flag("softmax", false);
    region.anchors = reader.real_list("anchors");
    reader.require_default("background", 0, "a background class is not implemented");
    reader.ignore({"bias_match", "jitter", "rescore", "object_scale", "noobject_scale", "class_scale",
                   "coord_scale", "mask_scale", "absolute", "thresh", "random", "log", "sqrt", "max",
                   "classfix"});
    reader.reject_unknown_options();

    if (region.anchors.size() != 2 * static_cast<std::size_t>(region.num)) {
        const CfgOption* anchors = reader.find("anchors");
        reader.fail(
            anchors,
            (anchors == nullptr ? std::string("option 'anchors' is missing")
                                : "'anchors' has " + std::to_string(region.anchors.size()) + " values") +
                " but num=" + std::to_string(region.num) + " needs " + std::to_string(2 * region.num),
            "give one width,height pair per anchor, e.g. anchors=1.08,1.19,3.42,4.41,...");
    }
    const int expected_channels = region.num * (region.classes + region.coords + 1);
    if (input.c != expected_channels) {
        reader.fail("region needs num*(classes+coords+1) = " + std::to_string(region.num) + "*(" +
                        std::to_string(region.classes) + "+" + std::to_string(region.coords) +
                        "+1) = " + std::to_string(expected_channels) +
                        " input channels, but the previous layer gives " + shape_text(input),
                    "set filters=" + std::to_string(expected_channels) +
                        " in the [convolutional] layer before it, or fix classes/num");
    }
    layer.output = input;
    layer.params = std::move(region);
    return layer;
}

}  // namespace fpgacnn::model

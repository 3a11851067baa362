// Sections fpgacnn does not run but fpgacnn-plan accepts (darknet's classifier cfgs: alexnet, vgg-16,
// resnet50): their output shapes as darknet's make_*_layer compute them, so the layers around them
// can be planned.
#include <string>

#include "model/layer_builders.hpp"

namespace fpgacnn::model {

bool is_planning_only_section(const std::string& name) {
    for (const char* known :
         {"connected", "conn", "softmax", "soft", "avgpool", "avg", "dropout", "cost", "crop"}) {
        if (name == known) return true;
    }
    return false;
}

Layer build_unsupported(SectionReader& reader, int index, const TensorShape& input) {
    const std::string& name = reader.section().name;
    Layer layer = make_layer(LayerType::Unsupported, index, reader, input);
    layer.output = input;  // softmax, dropout, cost: the same values
    if (name == "connected" || name == "conn") {
        // make_connected_layer: `output` values, as a 1x1 map.
        layer.output =
            TensorShape{reader.integer_in_range("output", 1, 1, kMaxFilters, "output is a count"), 1, 1};
    } else if (name == "avgpool" || name == "avg") {
        layer.output = TensorShape{input.c, 1, 1};  // the mean of each channel
    } else if (name == "crop") {
        // make_crop_layer: crop_height x crop_width (darknet's defaults: the input's).
        layer.output.h =
            reader.integer_in_range("crop_height", input.h, 1, kMaxImageSide, "crop_height in pixels");
        layer.output.w =
            reader.integer_in_range("crop_width", input.w, 1, kMaxImageSide, "crop_width in pixels");
    }
    layer.params = UnsupportedParams{name};
    return layer;  // its other options are darknet's business: nothing runs this layer
}

}  // namespace fpgacnn::model

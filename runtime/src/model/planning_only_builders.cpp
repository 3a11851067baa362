// Sections fpgacnn does not run but fpgacnn-plan accepts ([local], yolov1.cfg): their output shapes as
// darknet's make_*_layer compute them, so the layers around them can be planned.
#include <algorithm>
#include <string>

#include "model/layer_builders.hpp"

namespace fpgacnn::model {

bool is_planning_only_section(const std::string& name) { return name == "local"; }

Layer build_unsupported(SectionReader& reader, int index, const TensorShape& input) {
    const std::string& name = reader.section().name;
    Layer layer = make_layer(LayerType::Unsupported, index, reader, input);
    // make_local_layer: a convolution without shared weights, out = (in + 2 pad - size) / stride + 1.
    const int size = reader.integer_in_range("size", 1, 1, kMaxKernel, "size is the kernel side");
    const int stride = reader.integer_in_range("stride", 1, 1, kMaxKernel, "stride must be positive");
    const int pad = reader.flag("pad", false) ? size / 2 : 0;
    layer.output.c = reader.integer_in_range("filters", 1, 1, kMaxFilters, "filters is a count");
    layer.output.h = std::max(1, (input.h + 2 * pad - size) / stride + 1);
    layer.output.w = std::max(1, (input.w + 2 * pad - size) / stride + 1);
    layer.params = UnsupportedParams{name};
    return layer;  // its other options are darknet's business: nothing runs this layer
}

}  // namespace fpgacnn::model

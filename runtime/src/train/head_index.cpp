#include "train/head_index.hpp"

namespace fpgacnn::train {

HeadIndex head_index(const Layer& layer) {
    HeadIndex index;
    if (layer.type == LayerType::Region) {
        const RegionParams& region = layer.region();
        index.anchors = region.num;
        index.classes = region.classes;
        index.entries =
            static_cast<std::size_t>(region.coords) + 1 + static_cast<std::size_t>(region.classes);
    } else {
        const YoloParams& yolo = layer.yolo();
        index.anchors = static_cast<int>(yolo.mask.size());
        index.classes = yolo.classes;
        index.entries = 4 + 1 + static_cast<std::size_t>(yolo.classes);
    }
    index.plane = static_cast<std::size_t>(layer.output.w) * layer.output.h;
    index.image = layer.output.size();
    return index;
}

}  // namespace fpgacnn::train

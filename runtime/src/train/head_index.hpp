// darknet's entry_index for the detection heads ([region], [yolo]): an image's values are, per anchor,
// `entries` planes (x, y, w, h, objectness, then the classes), each plane the grid's w * h cells.
#pragma once

#include <cstddef>

#include "fpgacnn/network.hpp"

namespace fpgacnn::train {

struct HeadIndex {
    int anchors = 0;          ///< [region] num, [yolo] mask.size()
    int classes = 0;          ///< class planes per anchor
    std::size_t entries = 0;  ///< planes per anchor: [region] coords + 1 + classes, [yolo] 4 + 1 + classes
    std::size_t plane = 0;    ///< grid cells
    std::size_t image = 0;    ///< one image's values
    /// The value of entry `entry` of anchor `n` at grid cell `cell` of image `b`.
    std::size_t at(int b, int n, std::size_t cell, int entry) const {
        return b * image + (static_cast<std::size_t>(n) * entries + entry) * plane + cell;
    }
};

/// The layout of a [region] or [yolo] layer's output.
HeadIndex head_index(const Layer& layer);

}  // namespace fpgacnn::train

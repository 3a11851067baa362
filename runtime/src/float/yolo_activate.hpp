// The channel-range form of yolo_activate, so that the fixed-point backends activate a yolo head's
// channels in parallel (each channel's values depend on that channel alone).
#pragma once

#include "fpgacnn/network.hpp"

namespace fpgacnn::detail {

/// yolo_activate on channels [first, end) of the layer's output (`data`: the whole output), no
/// checks: the caller has validated the shape (check_yolo_shape). The same bits as yolo_activate.
void yolo_activate_channels(const YoloParams& yolo, const TensorShape& shape, float* data, int first,
                            int end);

/// Throws unless `shape` has mask.size() x (4 + 1 + classes) channels.
void check_yolo_shape(const YoloParams& yolo, const TensorShape& shape);

}  // namespace fpgacnn::detail

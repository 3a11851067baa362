// The size an image takes inside the network input after darknet's letterbox. letterbox_image and
// decode_region / decode_yolo (darknet's correct_*_boxes) must agree on it to the pixel, so both use this.
#pragma once

#include <vector>

#include "fpgacnn/vision.hpp"

namespace fpgacnn::vision_detail {

struct LetterboxSize {
    int w = 0;
    int h = 0;
};

/// darknet: if ((float)net_w/image_w < (float)net_h/image_h) scale by width, else by height, with the
/// other side computed in integer arithmetic (truncating).
LetterboxSize letterbox_size(int image_w, int image_h, int net_w, int net_h);

/// darknet's correct_region_boxes and correct_yolo_boxes (relative=1, identical code in both): undoes
/// the letterbox so the boxes are relative to the original image_w x image_h image.
void correct_for_letterbox(std::vector<RegionBox>& boxes, int image_w, int image_h, int net_w, int net_h);

}  // namespace fpgacnn::vision_detail

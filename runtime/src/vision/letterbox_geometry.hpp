// The size an image takes inside the network input after darknet's letterbox. letterbox_image and
// decode_region (darknet's correct_region_boxes) must agree on it to the pixel, so both use this.
#pragma once

namespace fpgacnn::vision_detail {

struct LetterboxSize {
    int w = 0;
    int h = 0;
};

/// darknet: if ((float)net_w/image_w < (float)net_h/image_h) scale by width, else by height, with the
/// other side computed in integer arithmetic (truncating).
LetterboxSize letterbox_size(int image_w, int image_h, int net_w, int net_h);

}  // namespace fpgacnn::vision_detail

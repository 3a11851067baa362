// Copies between fpgacnn's Image and the darknet harness' ReferenceImage (same CHW float layout).
#pragma once

#include "darknet_reference.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn::crosscheck {

inline ReferenceImage to_reference_image(const Image& image) {
    return {image.w, image.h, image.c, image.data};
}

inline Image to_image(const ReferenceImage& image) {
    Image out;
    out.w = image.w;
    out.h = image.h;
    out.c = image.c;
    out.data = image.data;
    return out;
}

}  // namespace fpgacnn::crosscheck

// darknet's box.c overlap / intersection / union / IoU, kept in float with the same operation order,
// since NMS decisions at the threshold depend on the exact value.
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

namespace {

// Length of the overlap of two 1-D segments given as centre and width (negative when disjoint).
float overlap(float x1, float w1, float x2, float w2) {
    const float l1 = x1 - w1 / 2;
    const float l2 = x2 - w2 / 2;
    const float left = l1 > l2 ? l1 : l2;
    const float r1 = x1 + w1 / 2;
    const float r2 = x2 + w2 / 2;
    const float right = r1 < r2 ? r1 : r2;
    return right - left;
}

float box_intersection(const Box& a, const Box& b) {
    const float w = overlap(a.x, a.w, b.x, b.w);
    const float h = overlap(a.y, a.h, b.y, b.h);
    if (w < 0 || h < 0) return 0;
    return w * h;
}

float box_union(const Box& a, const Box& b) {
    const float i = box_intersection(a, b);
    return a.w * a.h + b.w * b.h - i;
}

}  // namespace

float box_iou(const Box& a, const Box& b) {
    const float u = box_union(a, b);
    // darknet returns 0/0 = NaN for two empty boxes, which never exceeds an NMS threshold; 0 behaves
    // the same there and is easier on callers.
    if (u == 0) return 0;
    return box_intersection(a, b) / u;
}

}  // namespace fpgacnn

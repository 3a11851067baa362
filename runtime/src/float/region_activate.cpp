// The CPU half of darknet's forward_region_layer (inference only): per anchor, logistic on the
// x/y planes and on objectness, then either softmax over the class planes per cell or, with
// softmax=0, logistic on them. w/h stay raw (the box decoder applies exp and the anchors).
#include <cmath>
#include <cstddef>

#include "float/darknet_math.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_ops.hpp"

namespace fpgacnn {

namespace {

void logistic_in_place(float* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) values[i] = detail::darknet_logistic(values[i]);
}

}  // namespace

void region_activate(const RegionParams& region, const TensorShape& shape, float* data) {
    const std::size_t plane = static_cast<std::size_t>(shape.w) * shape.h;
    const int entries = region.coords + region.classes + 1;
    if (region.num < 1 || region.coords < 2 || region.classes < 0 || shape.c != region.num * entries) {
        throw Error("region_activate: " + std::to_string(shape.c) + " input channels do not match num=" +
                    std::to_string(region.num) + " x (coords=" + std::to_string(region.coords) +
                    " + classes=" + std::to_string(region.classes) + " + 1)");
    }
    for (int n = 0; n < region.num; ++n) {
        float* anchor = data + static_cast<std::size_t>(n) * entries * plane;
        logistic_in_place(anchor, 2 * plane);
        logistic_in_place(anchor + region.coords * plane, plane);
        float* classes = anchor + (region.coords + 1) * plane;
        if (!region.softmax) {
            logistic_in_place(classes, region.classes * plane);
            continue;
        }
        for (std::size_t cell = 0; cell < plane; ++cell)
            detail::darknet_softmax(classes + cell, region.classes, 1.0f, plane);
    }
}

}  // namespace fpgacnn

#include "train/truth_boxes.hpp"

#include <string>

#include "float/layer_checks.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::train {

int count_truth_boxes(const Layer& layer, int classes, const float* truths, int image, int limit) {
    int count = 0;
    while (count < limit && count < kMaxTruthBoxes && truths[count * kTruthFloats] != 0) {
        const float* t = truths + count * kTruthFloats;
        const bool inside = t[0] > 0 && t[0] < 1 && t[1] > 0 && t[1] < 1 && t[2] > 0 && t[3] > 0;
        const bool known_class = t[4] >= 0 && t[4] < static_cast<float>(classes);  // before any cast to int
        if (!inside || !known_class) {
            throw Error(detail::describe_layer(layer) + ": truth box " + std::to_string(count) +
                        " of image " + std::to_string(image) + " (x " + std::to_string(t[0]) + ", y " +
                        std::to_string(t[1]) + ", w " + std::to_string(t[2]) + ", h " + std::to_string(t[3]) +
                        ", class " + std::to_string(t[4]) +
                        ") is not a box inside the image of a class in 0.." + std::to_string(classes - 1) +
                        "; fix the label file");
        }
        ++count;
    }
    return count;
}

}  // namespace fpgacnn::train

#include "score_distance.hpp"

#include <cstddef>

namespace fpgacnn::train_tool {

namespace {

// One head's layout: per anchor [x, y, w, h, objectness, classes...], each a plane of the grid.
struct HeadLayout {
    int anchors = 0;
    int classes = 0;
    std::size_t plane = 0;
    std::size_t image = 0;  // one image's values
    std::size_t at(int b, int n, std::size_t cell, int entry) const {
        return b * image + (static_cast<std::size_t>(n) * (5 + classes) + entry) * plane + cell;
    }
};

HeadLayout layout_of(const Layer& layer) {
    HeadLayout head;
    head.anchors =
        layer.type == LayerType::Region ? layer.region().num : static_cast<int>(layer.yolo().mask.size());
    head.classes = layer.type == LayerType::Region ? layer.region().classes : layer.yolo().classes;
    head.plane = static_cast<std::size_t>(layer.output.w) * layer.output.h;
    head.image = layer.output.size();
    return head;
}

}  // namespace

double add_score_deltas(const Layer& layer, int batch, const std::vector<float>& teacher,
                        const std::vector<float>& student, float weight, std::vector<float>& delta) {
    if (weight == 0) return 0;
    const HeadLayout head = layout_of(layer);
    const bool softmax_classes = layer.type == LayerType::Region;
    constexpr int kObjectness = 4;
    constexpr int kFirstClass = 5;
    double cost = 0;
    for (int b = 0; b < batch; ++b) {
        for (int n = 0; n < head.anchors; ++n) {
            for (std::size_t cell = 0; cell < head.plane; ++cell) {
                const auto at = [&](int entry) { return head.at(b, n, cell, entry); };
                int best = 0;
                for (int c = 1; c < head.classes; ++c) {
                    if (teacher[at(kFirstClass + c)] > teacher[at(kFirstClass + best)]) best = c;
                }
                const double target =
                    static_cast<double>(teacher[at(kObjectness)]) * teacher[at(kFirstClass + best)];
                if (target < kScoreFloor) continue;
                const double objectness = student[at(kObjectness)];
                const double probability = student[at(kFirstClass + best)];
                const double error = target - objectness * probability;
                cost += 0.5 * weight * error * error;
                const double scaled = weight * error;  // minus d cost / d score
                if (softmax_classes) {
                    delta[at(kObjectness)] += static_cast<float>(scaled * probability);
                    for (int c = 0; c < head.classes; ++c) {
                        const double p = student[at(kFirstClass + c)];
                        delta[at(kFirstClass + c)] +=
                            static_cast<float>(scaled * objectness * probability * ((c == best) - p));
                    }
                } else {
                    delta[at(kObjectness)] +=
                        static_cast<float>(scaled * probability * objectness * (1 - objectness));
                    delta[at(kFirstClass + best)] +=
                        static_cast<float>(scaled * objectness * probability * (1 - probability));
                }
            }
        }
    }
    return cost;
}

}  // namespace fpgacnn::train_tool

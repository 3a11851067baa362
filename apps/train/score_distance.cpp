#include "score_distance.hpp"

#include <cstddef>

#include "train/head_index.hpp"

namespace fpgacnn::train_tool {

double add_score_deltas(const Layer& layer, int batch, const std::vector<float>& teacher,
                        const std::vector<float>& student, float weight, std::vector<float>& delta) {
    if (weight == 0) return 0;
    const train::HeadIndex head = train::head_index(layer);
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

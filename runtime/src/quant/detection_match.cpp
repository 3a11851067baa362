#include <algorithm>
#include <numeric>

#include "fpgacnn/quant_accuracy.hpp"

namespace fpgacnn {

int count_reproduced(const std::vector<Detection>& reference, const std::vector<Detection>& candidate,
                     float match_iou) {
    std::vector<std::size_t> order(reference.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return reference[a].prob > reference[b].prob; });
    std::vector<bool> used(candidate.size(), false);
    int reproduced = 0;
    for (std::size_t r : order) {
        const Detection& wanted = reference[r];
        // The unused candidate of the same class that overlaps most, if it overlaps enough.
        int best = -1;
        float best_iou = match_iou;
        for (std::size_t c = 0; c < candidate.size(); ++c) {
            if (used[c] || candidate[c].class_id != wanted.class_id) continue;
            const float iou = box_iou(wanted.box, candidate[c].box);
            if (iou >= best_iou) {
                best_iou = iou;
                best = static_cast<int>(c);
            }
        }
        if (best >= 0) {
            used[best] = true;
            ++reproduced;
        }
    }
    return reproduced;
}

}  // namespace fpgacnn

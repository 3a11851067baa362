#include "tensor_diff.hpp"

#include <cmath>
#include <limits>
#include <sstream>

namespace fpgacnn::crosscheck {

TensorDiff compare_tensors(const std::vector<float>& ours, const std::vector<float>& reference) {
    TensorDiff diff;
    const std::size_t n = ours.size() < reference.size() ? ours.size() : reference.size();
    for (std::size_t i = 0; i < n; ++i) {
        const double a = ours[i];
        const double b = reference[i];
        const double d =
            std::isfinite(a) && std::isfinite(b) ? std::fabs(a - b) : std::numeric_limits<double>::infinity();
        if (std::isfinite(b) && std::fabs(b) > diff.max_abs_reference) diff.max_abs_reference = std::fabs(b);
        if (d > diff.max_abs_diff || (i == 0 && d == 0)) {
            diff.max_abs_diff = d;
            diff.worst_index = i;
            diff.ours_at_worst = ours[i];
            diff.reference_at_worst = reference[i];
        }
    }
    return diff;
}

std::string describe(const TensorDiff& diff, const std::string& reference_name) {
    std::ostringstream out;
    out.precision(7);
    out << "max |diff| " << diff.max_abs_diff << " at [" << diff.worst_index << "] (ours "
        << diff.ours_at_worst << ", " << reference_name << " " << diff.reference_at_worst << "), max |"
        << reference_name << "| " << diff.max_abs_reference;
    return out.str();
}

}  // namespace fpgacnn::crosscheck

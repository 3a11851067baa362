// Element-wise comparison of two float tensors, reporting where they differ most.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fpgacnn::crosscheck {

struct TensorDiff {
    double max_abs_diff = 0;  // +inf when a NaN or Inf shows up on either side
    std::size_t worst_index = 0;
    float ours_at_worst = 0;
    float reference_at_worst = 0;
    double max_abs_reference = 0;  // the reference tensor's magnitude, for relative tolerances
};

/// Compares equally sized tensors (the caller checks the sizes first).
TensorDiff compare_tensors(const std::vector<float>& ours, const std::vector<float>& reference);

/// "max |diff| 1.2e-06 at [345] (ours 0.51234, darknet 0.51234), max |darknet| 7.3"
std::string describe(const TensorDiff& diff, const std::string& reference_name = "darknet");

}  // namespace fpgacnn::crosscheck

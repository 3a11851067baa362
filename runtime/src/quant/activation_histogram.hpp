// Activation statistics of one tensor over many calibration images, kept as a histogram of "the
// largest exponent at which this value does not saturate", which is all the exponent choice needs:
// exact for any percentile, constant memory, one pass.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fpgacnn {

class ActivationHistogram {
public:
    ActivationHistogram();
    void add(const float* values, std::size_t count);
    void merge(const ActivationHistogram& other);

    /// The largest exponent in the contract's range at which at most (100 - percentile) % of the
    /// values seen saturate (the contract's minimum when even that saturates more).
    int exponent(double percentile) const;

    double max_abs() const { return max_abs_; }
    std::uint64_t count() const { return count_; }

    /// The largest exponent in [kMinExponent - 1, kMaxExponent] at which `value` quantizes
    /// without saturating (kMinExponent - 1: saturates at every allowed exponent).
    static int max_unsaturated_exponent(float value);

private:
    std::vector<std::uint64_t> bins_;  // bins_[q - (kMinExponent - 1)]
    std::uint64_t count_ = 0;
    double max_abs_ = 0;
};

}  // namespace fpgacnn

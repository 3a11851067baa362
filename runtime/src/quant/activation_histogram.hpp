// Activation statistics of one tensor over many calibration images, kept as a histogram of "the
// largest exponent at which this value does not saturate" (exact for any percentile) and, per octave
// of |x|, the count, sum |x| and sum x^2 (enough to estimate the squared quantization error at any
// exponent and width): constant memory, one pass.
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

    /// The exponent in the contract's range with the least estimated squared error when these values
    /// are stored in `bits` bits, saturation included (ties go to the coarser exponent, which saturates
    /// later on unseen data). What an 8-bit output uses: a bit of margin costs 6 dB of its ~48.
    int least_squares_exponent(int bits) const;

    /// Estimated sum of (x - dequantize(quantize(x, q), q))^2 over the values seen, at `bits` bits:
    /// exact for values that round to 0, to one step or saturate; step^2 / 12 each for the others.
    double squared_error(int q, int bits) const;

    double max_abs() const { return max_abs_; }
    std::uint64_t count() const { return count_; }

    /// The largest exponent in [kMinExponent - 1, kMaxExponent] at which `value` quantizes
    /// without saturating (kMinExponent - 1: saturates at every allowed exponent).
    static int max_unsaturated_exponent(float value);

private:
    struct Octave {
        double count = 0;
        double sum_abs = 0;
        double sum_squares = 0;
    };

    std::vector<std::uint64_t> bins_;  // bins_[q - (kMinExponent - 1)]
    std::vector<Octave> octaves_;      // octaves_[ilogb(|x|) - kLowestOctave], clamped at both ends
    std::uint64_t count_ = 0;
    double max_abs_ = 0;
};

}  // namespace fpgacnn

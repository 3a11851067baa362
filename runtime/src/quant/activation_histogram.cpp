#include "quant/activation_histogram.hpp"

#include <algorithm>
#include <cmath>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {

namespace {
constexpr int kLowestBin = arith::kMinExponent - 1;
// Octaves k = ilogb(|x|) that behave differently at some allowed exponent q and width: from those that
// round to 0 at every q (k + q <= -2 even at kMaxExponent) to those that saturate 16 bits at every q
// (k + q >= 15 even at kMinExponent). Values outside are clamped into the end octaves, which behave
// the same way.
constexpr int kLowestOctave = -arith::kMaxExponent - 2;
constexpr int kHighestOctave = arith::kDataBits - 1 - arith::kMinExponent;
}  // namespace

ActivationHistogram::ActivationHistogram()
    : bins_(arith::kMaxExponent - kLowestBin + 1, 0), octaves_(kHighestOctave - kLowestOctave + 1) {}

int ActivationHistogram::max_unsaturated_exponent(float value) {
    const double magnitude = std::fabs(static_cast<double>(value));
    // Zero and NaN quantize to 0 at every exponent.
    if (!(magnitude > 0)) return arith::kMaxExponent;
    if (std::isinf(magnitude)) return kLowestBin;
    // magnitude in [2^e, 2^(e+1)), so at q = 14 - e it lies in [2^14, 2^15): it fits unless it rounds
    // up to 32768. A symmetric bound (negative values could reach -32768) keeps this conservative.
    int q = 14 - std::ilogb(magnitude);
    if (std::ldexp(magnitude, q) >= 32767.5) --q;
    return std::clamp(q, kLowestBin, arith::kMaxExponent);
}

void ActivationHistogram::add(const float* values, std::size_t count) {
    double max_abs = max_abs_;
    for (std::size_t i = 0; i < count; ++i) {
        ++bins_[max_unsaturated_exponent(values[i]) - kLowestBin];
        const double magnitude = std::fabs(static_cast<double>(values[i]));
        if (magnitude > max_abs) max_abs = magnitude;
        // Zero and NaN add nothing to any error; infinities are kept out of the sums.
        if (!(magnitude > 0) || std::isinf(magnitude)) continue;
        Octave& octave =
            octaves_[std::clamp(std::ilogb(magnitude), kLowestOctave, kHighestOctave) - kLowestOctave];
        octave.count += 1;
        octave.sum_abs += magnitude;
        octave.sum_squares += magnitude * magnitude;
    }
    max_abs_ = max_abs;
    count_ += count;
}

void ActivationHistogram::merge(const ActivationHistogram& other) {
    for (std::size_t i = 0; i < bins_.size(); ++i) bins_[i] += other.bins_[i];
    for (std::size_t i = 0; i < octaves_.size(); ++i) {
        octaves_[i].count += other.octaves_[i].count;
        octaves_[i].sum_abs += other.octaves_[i].sum_abs;
        octaves_[i].sum_squares += other.octaves_[i].sum_squares;
    }
    count_ += other.count_;
    max_abs_ = std::max(max_abs_, other.max_abs_);
}

int ActivationHistogram::exponent(double percentile) const {
    if (!(percentile > 0 && percentile <= 100)) {
        throw Error("percentile " + std::to_string(percentile) + " is outside (0, 100]");
    }
    const auto allowed = static_cast<std::uint64_t>(std::floor((100.0 - percentile) / 100.0 * count_));
    // saturating(q) = values whose largest unsaturated exponent is below q; it grows with q.
    std::uint64_t saturating = bins_[0];
    int best = arith::kMinExponent;
    for (int q = arith::kMinExponent; q <= arith::kMaxExponent; ++q) {
        if (q > arith::kMinExponent) saturating += bins_[q - 1 - kLowestBin];
        if (saturating > allowed) break;
        best = q;
    }
    return best;
}

double ActivationHistogram::squared_error(int q, int bits) const {
    const double step = std::ldexp(1.0, -q);
    const double largest = std::ldexp(1.0, bits - 1) - 1;  // the positive end: symmetric, conservative
    double error = 0;
    for (std::size_t i = 0; i < octaves_.size(); ++i) {
        const Octave& octave = octaves_[i];
        if (octave.count == 0) continue;
        // |x| * 2^q lies in [2^scaled, 2^(scaled + 1)).
        const int scaled = static_cast<int>(i) + kLowestOctave + q;
        // sum (|x| - level * step)^2 when every value of the octave lands on one level.
        const auto onto = [&](double level) {
            const double value = level * step;
            return octave.sum_squares - 2 * value * octave.sum_abs + octave.count * value * value;
        };
        if (scaled <= -2) {
            error += octave.sum_squares;  // below half a step: rounds to 0
        } else if (scaled == -1) {
            error += onto(1);  // [0.5, 1) steps: rounds to one step
        } else if (scaled >= bits - 1) {
            error += onto(largest);  // at or above 2^(bits-1) steps: saturates
        } else {
            error += octave.count * step * step / 12;  // rounding noise
        }
    }
    return error;
}

int ActivationHistogram::least_squares_exponent(int bits) const {
    int best = arith::kMinExponent;
    double best_error = squared_error(best, bits);
    for (int q = arith::kMinExponent + 1; q <= arith::kMaxExponent; ++q) {
        const double error = squared_error(q, bits);
        if (error < best_error) {
            best = q;
            best_error = error;
        }
    }
    return best;
}

}  // namespace fpgacnn

#include "quant/activation_histogram.hpp"

#include <algorithm>
#include <cmath>

#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {

namespace {
constexpr int kLowestBin = arith::kMinExponent - 1;
}

ActivationHistogram::ActivationHistogram() : bins_(arith::kMaxExponent - kLowestBin + 1, 0) {}

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
    }
    max_abs_ = max_abs;
    count_ += count;
}

void ActivationHistogram::merge(const ActivationHistogram& other) {
    for (std::size_t i = 0; i < bins_.size(); ++i) bins_[i] += other.bins_[i];
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

}  // namespace fpgacnn

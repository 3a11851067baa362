// Per-tensor exponent choice: least squared error for parameters (as the published design's
// calibration does), a saturation percentile for activations.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "quant/activation_histogram.hpp"

namespace fpgacnn {

namespace {

// arith::quantize_to_width with the scale hoisted out of the loop; the same double arithmetic, so the
// same integers (tests check this against arith::quantize). `limit`: 2^(bits - 1).
double quantized_value(float value, double scale, double limit) {
    const double x = static_cast<double>(value) * scale + 0.5;
    if (x >= limit) return limit - 1;
    if (x < -limit) return -limit;
    const auto truncated = static_cast<std::int64_t>(x);
    return static_cast<double>(static_cast<double>(truncated) > x ? truncated - 1 : truncated);
}

// The squared error at exponent q, or +infinity as soon as it exceeds `bound` (errors only grow, so
// such an exponent cannot win); checked per block to keep the inner loop tight.
double squared_error(const float* values, std::size_t count, int q, double bound, int bits) {
    const double scale = std::ldexp(1.0, q);
    const double limit = std::ldexp(1.0, bits - 1);
    const double step = std::ldexp(1.0, -q);
    constexpr std::size_t kBlock = 4096;
    double sum = 0;
    for (std::size_t begin = 0; begin < count; begin += kBlock) {
        const std::size_t end = std::min(count, begin + kBlock);
        for (std::size_t i = begin; i < end; ++i) {
            if (std::isnan(values[i])) continue;
            const double error =
                static_cast<double>(values[i]) - quantized_value(values[i], scale, limit) * step;
            sum += error * error;
        }
        if (sum > bound) return std::numeric_limits<double>::infinity();
    }
    return sum;
}

float max_magnitude(const float* values, std::size_t count) {
    float m = 0;
    for (std::size_t i = 0; i < count; ++i) {
        if (std::fabs(values[i]) > m) m = std::fabs(values[i]);
    }
    return m;
}

}  // namespace

ExponentChoice best_exponent(const float* values, std::size_t count, int min_q, int max_q, int bits) {
    if (!arith::is_cpu_width(bits)) throw Error("best_exponent: width " + std::to_string(bits) + " bits");
    if (min_q > max_q) {
        throw Error("best_exponent: empty exponent range [" + std::to_string(min_q) + ", " +
                    std::to_string(max_q) + "]");
    }
    // Every exponent of the range is a candidate. Trying the one that just holds the largest value
    // first, then its neighbours, finds a low error early, so the other candidates are abandoned
    // after a fraction of the tensor: the same answer as a full sweep, several times faster.
    const int start = std::clamp(ActivationHistogram::max_unsaturated_exponent(max_magnitude(values, count)) -
                                     (arith::kDataBits - bits),
                                 min_q, max_q);
    ExponentChoice best{max_q, std::numeric_limits<double>::infinity()};
    auto consider = [&](int q) {
        const double error = squared_error(values, count, q, best.squared_error, bits);
        // Ties keep the finer exponent.
        if (error < best.squared_error || (error == best.squared_error && q > best.q)) best = {q, error};
    };
    consider(start);
    for (int distance = 1; start - distance >= min_q || start + distance <= max_q; ++distance) {
        if (start + distance <= max_q) consider(start + distance);
        if (start - distance >= min_q) consider(start - distance);
    }
    return best;
}

int activation_exponent(const float* values, std::size_t count, double percentile) {
    ActivationHistogram histogram;
    histogram.add(values, count);
    return histogram.exponent(percentile);
}

}  // namespace fpgacnn

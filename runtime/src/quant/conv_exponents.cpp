#include "quant/conv_exponents.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"

namespace fpgacnn {

namespace {

std::string layer_name(const Layer& layer) { return "layer " + std::to_string(layer.index) + " (conv)"; }

void require_finite(const Layer& layer, const std::vector<float>& values, const char* what) {
    for (float v : values) {
        if (!std::isfinite(v)) {
            throw Error(layer_name(layer) + " has a non-finite " + what + " (" + std::to_string(v) +
                        "): the .weights file is damaged or the training diverged");
        }
    }
}

}  // namespace

ConvExponents choose_conv_exponents(const Layer& layer, int input_q, int output_q, double max_abs_accumulator,
                                    double accumulator_margin_bits, int weight_bits) {
    const ConvParams& conv = layer.conv();
    require_finite(layer, conv.weights, "weight");
    require_finite(layer, conv.biases, "bias");

    ConvExponents result;
    const ExponentChoice best = best_exponent(conv.weights.data(), conv.weights.size(), arith::kMinExponent,
                                              arith::kMaxExponent, weight_bits);
    result.best_weight_q = best.q;

    // Each constraint is an upper bound on Qw: below it the weights lose precision, but nothing wraps
    // or overflows. The weight exponent is then the best one under the tightest bound.
    struct Bound {
        int max_q;
        std::string reason;
    };
    std::vector<Bound> bounds;
    if (max_abs_accumulator > 0) {
        const double limit_bits = 31.0 - accumulator_margin_bits;
        const int max_q = static_cast<int>(std::floor(limit_bits - std::log2(max_abs_accumulator) - input_q));
        bounds.push_back(
            {max_q, fmt::format("for accumulator headroom (max |pre-activation| {:.4g}, {:g} bit(s) "
                                "below the int32 wrap)",
                                max_abs_accumulator, accumulator_margin_bits)});
    }
    bounds.push_back({arith::kModelMaxOutputShift + output_q - input_q,
                      fmt::format("for output_shift <= {}", arith::kModelMaxOutputShift)});
    bounds.push_back(
        {arith::kMaxExponent + arith::kModelMaxBiasShift - input_q,
         fmt::format("for bias_shift <= {} with Qb <= {}", arith::kModelMaxBiasShift, arith::kMaxExponent)});
    const Bound* tightest = nullptr;
    for (const Bound& bound : bounds) {
        if (tightest == nullptr || bound.max_q < tightest->max_q) tightest = &bound;
    }
    // Qacc = Qw + Qin must not fall below the contract's range either (Qb <= Qacc).
    const int min_weight_q = std::max(arith::kMinExponent, arith::kMinExponent - input_q);
    const int max_weight_q = std::min(arith::kMaxExponent, tightest->max_q);
    if (max_weight_q < min_weight_q) {
        throw Error(
            fmt::format("{}: no weight exponent satisfies the arithmetic contract (at most {} {}, but at "
                        "least {}); the activations are too large for int16 - check the weights",
                        layer_name(layer), tightest->max_q, tightest->reason, min_weight_q));
    }
    int weight_q = best.q;
    result.weight_squared_error = best.squared_error;
    if (best.q < min_weight_q || best.q > max_weight_q) {
        const ExponentChoice constrained =
            best_exponent(conv.weights.data(), conv.weights.size(), min_weight_q, max_weight_q, weight_bits);
        weight_q = constrained.q;
        result.weight_squared_error = constrained.squared_error;
        const std::string reason =
            best.q > max_weight_q ? tightest->reason : "so that Qw + Qin >= the minimum";
        result.notes.push_back(
            fmt::format("{}: weight exponent {} -> {} {}", layer_name(layer), best.q, weight_q, reason));
    }
    result.weight_q = weight_q;

    const int accumulator_q = weight_q + input_q;
    if (accumulator_q - output_q < arith::kModelMinOutputShift) {
        result.needs_lower_output = true;
        result.max_output_q = accumulator_q - arith::kModelMinOutputShift;
    }
    const int bias_min = std::max(arith::kMinExponent, accumulator_q - arith::kModelMaxBiasShift);
    const int bias_max = std::min(arith::kMaxExponent, accumulator_q - arith::kModelMinBiasShift);
    result.bias_q = best_exponent(conv.biases.data(), conv.biases.size(), bias_min, bias_max).q;
    result.accumulator_bits = max_abs_accumulator > 0 ? std::log2(max_abs_accumulator) + accumulator_q
                                                      : -std::numeric_limits<double>::infinity();
    return result;
}

}  // namespace fpgacnn

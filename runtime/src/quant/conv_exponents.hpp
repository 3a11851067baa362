// The weight and bias exponents of one convolutional layer, once its input and output exponents
// are known, under every constraint of the arithmetic contract.
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/network.hpp"

namespace fpgacnn {

struct ConvExponents {
    int weight_q = 0;
    int bias_q = 0;
    int best_weight_q = 0;            // before constraints
    double weight_squared_error = 0;  // at weight_q
    double accumulator_bits = 0;      // log2(max |acc|) at weight_q + input_q; -inf when all zero
    /// Set when output_shift would fall below arith::kModelMinOutputShift: the output exponent must not
    /// exceed this (the weights cannot be made finer without saturating).
    bool needs_lower_output = false;
    int max_output_q = 0;
    std::vector<std::string> notes;  // why weight_q is below best_weight_q
};

/// `max_abs_accumulator`: max |pre-activation| of the layer in float on the calibration data.
/// `weight_bits`: the storage width of the weights (16 or 8).
ConvExponents choose_conv_exponents(const Layer& layer, int input_q, int output_q, double max_abs_accumulator,
                                    double accumulator_margin_bits, int weight_bits = 16);

}  // namespace fpgacnn

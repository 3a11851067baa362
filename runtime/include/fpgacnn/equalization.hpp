// Cross-layer equalization of conv weight ranges (Nagel et al., "Data-Free Quantization Through Weight
// Equalization and Bias Correction", ICCV 2019), before calibration: one exponent per weight tensor
// (docs/arithmetic.md) serves a layer whose output channels have weights of very different sizes
// badly, its small channels rounding to a few steps. Where a conv's output reaches the next conv only
// through a positively homogeneous activation (linear, leaky, relu: f(x / s) = f(x) / s for s > 0) and
// maxpool layers (which commute with a positive scale per channel), output channel c of the first can
// be divided by s_c and input channel c of the second multiplied by s_c without changing what the
// network computes. s_c = sqrt(r1_c / r2_c), r1_c the largest |weight| of the first conv's filter c and
// r2_c that of the second's weights reading channel c, makes both ranges sqrt(r1_c * r2_c).
// docs/arithmetic.md, "Cross-layer equalization", says when it helps and by how much.
#pragma once

#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn {

/// One pair of convs that equalize_conv_ranges() balanced.
struct FPGACNN_API EqualizedPair {
    int first = 0;   ///< the conv whose output channel c was divided by s_c (weights and bias)
    int second = 0;  ///< the conv whose weights reading channel c were multiplied by s_c
    /// Largest over smallest non-zero filter range (max |weight|) of `first`, before and after.
    double first_ratio_before = 0;
    double first_ratio_after = 0;  ///< the same after equalization
};

/// Equalizes every eligible pair of `network` (weights loaded, batch-norm folded: load_darknet_model)
/// in place, sweeping over the pairs until no scale moves by more than 1e-4 (at most 100 sweeps: a
/// chain of pairs converges geometrically). Eligible: a conv (not [connected]) with activation linear,
/// leaky or relu whose output only the next layer reads, followed by zero or more maxpool layers each
/// read only by the next, then a conv (not [connected]). Returns the pairs in network order; the float
/// outputs of the network are unchanged up to float rounding. Throws Error when weights are not
/// loaded or batch-norm is not folded.
FPGACNN_API std::vector<EqualizedPair> equalize_conv_ranges(Network& network);

}  // namespace fpgacnn

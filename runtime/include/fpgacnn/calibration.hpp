// Calibration: from a float network (weights loaded, batch-norm folded) to a QuantizedNetwork in
// int16 dynamic fixed point (docs/arithmetic.md, section "Calibration").
//  - weight and bias exponents: the exponent with the least squared quantization error over the
//    tensor, saturation included (every exponent of the allowed range is tried);
//  - activation exponents: from the float path run on letterboxed calibration images, per layer the
//    largest exponent at which at most (100 - percentile) % of the values saturate;
//  - constraints: route inputs share one exponent, maxpool / reorg / region keep their input's,
//    bias_shift in [0, 15], output_shift within the contract's limits, accumulator headroom.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/int16_ops.hpp"  // the shift ranges arith::kModel*Shift (kernel/contract.hpp)
#include "fpgacnn/quantized.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

/// Storage widths asked for one layer (docs/arithmetic.md, "Per-layer widths"): 16 or 8 bits.
struct FPGACNN_API LayerWidths {
    int weight_bits = 16;  ///< conv layers' weights
    int output_bits = 16;  ///< conv layers' outputs; other layers carry their input's width
};

/// Every conv layer's weights and outputs at `bits` (--precision int8: bits = 8), the others at 16.
FPGACNN_API std::vector<LayerWidths> uniform_conv_widths(const Network& network, int bits);

/// How calibrate() chooses exponents and widths (the defaults are fpgacnn-quantize's).
struct FPGACNN_API CalibrationOptions {
    /// Per layer, the share of float activations (in %) that must fit without saturating.
    /// 100 = the maximum |x| seen (no calibration value saturates); 99.99 tolerates 1 in 10^4.
    /// 16-bit outputs only: an 8-bit output takes the exponent of least squared error (saturation
    /// included), and the 8-bit input of a [region] / [yolo] / [softmax] its maximum without a margin
    /// (docs/arithmetic.md, "Calibration at 8 bits").
    double percentile = 100.0;
    /// Exponent of the letterboxed input image (values 0..1); 14 leaves a bit of margin above 1.
    int input_q = 14;
    /// Activation exponents are set this many bits below what the calibration images need, so that
    /// images with larger activations than the calibration set saturate later (each bit costs about
    /// 6 dB of SQNR, of which int16 has plenty: see docs/arithmetic.md, "Calibration"). 16-bit outputs
    /// only, as `percentile`.
    int activation_margin_bits = 1;
    /// Accumulators must stay this many bits below the int32 wrap on calibration data (max |acc| <=
    /// 2^(31 - bits)); a layer that would not gets its weight exponent lowered (and a note saying so).
    /// A wrap turns a large value into a wrong-signed one, far worse than saturation, so this margin
    /// is larger than the activations'.
    double accumulator_margin_bits = 2.0;
    /// A progress bar on stderr (one line updated on a terminal, a single final line otherwise).
    bool progress = false;
    /// Per layer (empty: all 16). Only conv layers' requests count; a route's inputs and everything
    /// that carries their values share one width, the widest any of their conv layers asks for
    /// (a note says when a request was widened).
    std::vector<LayerWidths> widths;
};

/// What calibration measured and decided for one layer (for reports and tests).
struct FPGACNN_API LayerCalibration {
    double max_abs_output = 0;       ///< float output, over all calibration images
    int preferred_output_q = 0;      ///< from this layer's statistics alone (margin included)
    double max_abs_accumulator = 0;  ///< conv: float pre-activation max |x| (bias included)
    double accumulator_bits = 0;  ///< conv: log2 of max |acc| in int32 units at Qw + Qin (<= 31 - headroom)
    double weight_rms_error = 0;  ///< conv: RMS of (w - dequantized w)
    int weight_q_lowered = 0;     ///< conv: bits taken off the best weight exponent to meet a constraint
};

/// What calibrate() returns: the quantized network and why each exponent is what it is.
struct FPGACNN_API CalibrationResult {
    QuantizedNetwork quantized;            ///< the network in fixed point, parameters in memory
    std::vector<LayerCalibration> layers;  ///< one per network layer
    int images = 0;                        ///< calibration images the float path ran on
    CalibrationOptions options;            ///< as used
    /// Human-readable decisions that deviate from the plain statistics (exponents lowered for
    /// headroom, shifts or route sharing); also logged at info level.
    std::vector<std::string> notes;
};

/// The float statistics of a calibration run, gathered once and quantized at any widths: the width
/// exploration (fpgacnn-quantize --explore) calibrates dozens of width choices from one float pass.
class FPGACNN_API Calibration {
public:
    /// Runs the float path on the images as calibrate() does (options.widths is ignored here).
    Calibration(const Network& network, const std::vector<std::string>& image_paths,
                const CalibrationOptions& options = {});
    ~Calibration();
    Calibration(const Calibration&) = delete;
    Calibration& operator=(const Calibration&) = delete;
    /// Exponents and parameters for `widths` (per layer, empty: all 16), as calibrate() would choose.
    CalibrationResult quantize(const std::vector<LayerWidths>& widths) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Calibrates on image files (each loaded, letterboxed to the network input and run through the
/// float path). Throws Error naming the file for unreadable images, or when no image is given.
FPGACNN_API CalibrationResult calibrate(const Network& network, const std::vector<std::string>& image_paths,
                                        const CalibrationOptions& options = {});

/// Same on already letterboxed images of the network's input size (e.g. camera frames).
FPGACNN_API CalibrationResult calibrate_letterboxed(const Network& network,
                                                    const std::vector<Image>& letterboxed,
                                                    const CalibrationOptions& options = {});

// ---- Building blocks (public so that tests and tools can check each rule on its own) ----

/// The exponent q in [min_q, max_q] whose round-and-saturate quantization of `values` has the least
/// squared error; ties go to the larger q. Also returns that error. `bits`: the storage width the
/// values saturate at (16 or 8).
struct FPGACNN_API ExponentChoice {
    int q = 0;                 ///< the exponent chosen (value = int * 2^-q)
    double squared_error = 0;  ///< sum over the values of (value - dequantized)^2 at q
};
/// The exponent choice described at ExponentChoice above.
FPGACNN_API ExponentChoice best_exponent(const float* values, std::size_t count, int min_q, int max_q,
                                         int bits = 16);

/// The largest q in the contract's range at which at most (100 - percentile) % of `values` saturate.
FPGACNN_API int activation_exponent(const float* values, std::size_t count, double percentile);

/// Route unification: given each layer's preferred output exponent, the exponents after forcing
/// every route's inputs, and every maxpool / reorg / route / region output, into one group with its
/// inputs; a group takes the minimum of its members' preferences (the input image: input_q).
struct FPGACNN_API ActivationExponents {
    int input_q = 14;           ///< the network input's exponent (as given)
    std::vector<int> output_q;  ///< per layer
    std::vector<int> input_of;  ///< per layer: the exponent of the tensor(s) it reads
};
/// Route unification as described at ActivationExponents above.
FPGACNN_API ActivationExponents unify_activation_exponents(const Network& network,
                                                           const std::vector<int>& preferred_output_q,
                                                           int input_q);

/// The images calibration and fpgacnn-quantize use when none are given: darknet's samples.
FPGACNN_API std::vector<std::string> default_calibration_images();

/// ---- Tensor conversion at one exponent (arith::quantize / arith::dequantize on arrays) ----
/// arith::quantize_to_width at `bits` (16: arith::quantize).
FPGACNN_API void quantize_tensor(const float* values, std::size_t count, int q, int16_t* out, int bits = 16);
/// arith::dequantize of `count` values at exponent q: out[i] = values[i] * 2^-q.
FPGACNN_API void dequantize_tensor(const int16_t* values, std::size_t count, int q, float* out);

}  // namespace fpgacnn

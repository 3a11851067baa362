// The CPU fixed-point twin of the kernel's training phases (contract 6, docs/arithmetic.md "Training
// phases"): BP (the input delta) and WG (the weight gradient) of one conv layer written straight from
// their definitions, without tiles, stride classes or the array, so a test comparing them with the
// kernel checks the kernel's dataflow, not a copy of it. Same bits as the emu on every command
// check_command accepts. Internal (fpgacnn_internal); fpgacnn-train will call it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/kernel/layer_command.hpp"

namespace fpgacnn {
class Device;
struct CommandStats;
}  // namespace fpgacnn

namespace fpgacnn::train_fixed {

/// The forward conv layer a training phase belongs to: X[in_c][in_h][in_w] -> Y[out_c][out_h][out_w],
/// weights [out_c][in_c][k][k] (darknet's order), out_* = (in + 2 pad - k) / stride + 1.
struct ConvShape {
    int in_c = 1, in_h = 1, in_w = 1;
    int out_c = 1, out_h = 1, out_w = 1;
    int kernel_size = 1, stride = 1, pad = 0;

    std::size_t input_elements() const { return static_cast<std::size_t>(in_c) * in_h * in_w; }
    std::size_t output_elements() const { return static_cast<std::size_t>(out_c) * out_h * out_w; }
    std::size_t weight_elements() const {
        return static_cast<std::size_t>(out_c) * in_c * kernel_size * kernel_size;
    }
};

/// Throws Error "<phase>: <what> has <got> values, the layer needs <want>" when got != want.
void require_sizes(const char* phase, std::size_t got, std::size_t want, const char* what);

/// The shape with out_h / out_w computed from the input and window.
ConvShape conv_shape(int in_c, int in_h, int in_w, int out_c, int kernel_size, int stride, int pad);

/// BP: dx (batch x input_elements, exponent Qe - ... see below) from dy (batch x output_elements) and
/// weights (darknet order): dx[n][h][w] = round(sum_m sum_taps dy * w / 2^shift), saturated to int16,
/// with the int32 wrapping sum of arith::mac and shift = Qw + Qe(dy) - Qe(dx).
std::vector<int16_t> conv_backward(const ConvShape& shape, int batch, const std::vector<int16_t>& dy,
                                   const std::vector<int16_t>& weights, int shift);

/// WG: dw[m][n][ky][kx] = round(sum_batch sum_{r,c} dy[m][r][c] * x[n][r*S + ky - P][c*S + kx - P] /
/// 2^shift) with 64-bit sums (arith::mac64, arith::requantize_gradient); shift = Qx + Qe - Qg.
std::vector<int16_t> weight_gradient(const ConvShape& shape, int batch, const std::vector<int16_t>& x,
                                     const std::vector<int16_t>& dy, int shift);

/// Darknet-order weights in BP's weight layout for a Tm x Tn kernel (kernel::backward_weight_index).
std::vector<int16_t> backward_weights(const ConvShape& shape, const std::vector<int16_t>& weights, int tm,
                                      int tn);

/// The dynamic exponent of an int16 tensor whose largest magnitude is `max_abs` (chosen per batch):
/// the largest q with max_abs * 2^q <= 32767, clamped to [arith::kMinExponent, 2 * arith::kMaxExponent].
/// A zero tensor takes the largest.
int dynamic_exponent(double max_abs);

/// BP sums in the forward conv's int32 accumulators, which wrap (arith::mac): the partial sums may,
/// the final one must fit. It does when BP's shift Qw + Qe - Qdx is at most kBackwardMaxShift (dX held
/// in int16 at Qdx, so |sum| < 2^15 * 2^16). The error's exponent for a batch is therefore the dynamic
/// one capped by this (docs/arithmetic.md "Training phases").
constexpr int kBackwardMaxShift = 16;

/// The error exponent of a batch: dynamic_exponent of its largest magnitude, lowered to keep BP's sum
/// in int32 for weights at `weight_exponent` and a delta at `delta_exponent`.
int error_exponent(double max_abs, int weight_exponent, int delta_exponent);

/// The kernel command of one phase (op kOpConvBackward or kOpWeightGradient) for `shape`, with the
/// largest tiles the build allows; offsets 0 (the caller places the tensors).
kernel::LayerCommand phase_command(uint32_t op, const ConvShape& shape, int batch, int shift,
                                   const kernel::Maxima& maxima);

/// Runs BP of one layer on `device` through its command queue (allocate, sync, start, wait, sync back):
/// the small internal API fpgacnn-train builds on. Returns dx like conv_backward; `stats` (optional)
/// gets the command's traffic. Throws the device's errors (e.g. "BP/WG not supported by this build").
std::vector<int16_t> conv_backward_on_device(Device& device, const ConvShape& shape, int batch,
                                             const std::vector<int16_t>& dy,
                                             const std::vector<int16_t>& weights, int shift,
                                             CommandStats* stats = nullptr);

/// Runs WG of one layer on `device`, like weight_gradient.
std::vector<int16_t> weight_gradient_on_device(Device& device, const ConvShape& shape, int batch,
                                               const std::vector<int16_t>& x, const std::vector<int16_t>& dy,
                                               int shift, CommandStats* stats = nullptr);

}  // namespace fpgacnn::train_fixed

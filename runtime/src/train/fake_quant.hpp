// Quantization-aware training (fpgacnn-train --qat): the FORWARD pass of FloatTrainer computed at the
// model's fixed-point widths and exponents, and the straight-through gradients that go with it
// (docs/arithmetic.md, "Quantization-aware training").
//
// A conv layer's forward IS the fixed-point path: its input (already on the producer's grid) and its
// weights and biases quantized with the contract's rounding (arith::quantize_to_width), then the CPU
// engine's own conv (Int16PackedConv: wrapping int32 sum, one rounding with the activation folded in,
// saturation to the output width), dequantized. So a fake-quantized layer's output equals the int16 /
// int8 engine's dequantized output bit for bit, not to a bound. Maxpool, route, reorg and upsample only
// move values, so they stay on the grid; the region layer computes in float on the dequantized values,
// as the fixed-point paths do. Every other layer kind is refused.
//
// Backward (straight-through estimator): rounding has gradient 1; saturation has gradient 0: the delta
// of a conv output that sits at its width's bound is zeroed, and so is the gradient of a weight that
// lies beyond its grid's range. The input delta flows through the quantized weights the forward used.
// Batch-norm is not seen here: --qat folds it into the weights before training (frozen statistics),
// exactly as the fixed-point paths see the layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fpgacnn/network.hpp"
#include "fpgacnn/quantized.hpp"
#include "train/conv_train.hpp"

namespace fpgacnn::train {

class FakeQuantizer {
public:
    /// `network`: the one FloatTrainer trains (batch-norm folded, so no conv has batch_normalize).
    /// Throws Error naming the layer for what the fixed-point forward does not cover.
    explicit FakeQuantizer(const Network& network);

    /// The exponents and widths to train at (calibrate() / Calibration::quantize on the current
    /// float weights; its int16 parameters are not used: they are quantized again from the float
    /// weights on every forward). Validated against the contract; throws Error naming the layer.
    void set_plan(const QuantizedNetwork& plan);
    const QuantizedNetwork& plan() const { return plan_; }
    bool has_plan() const { return !plan_.layers.empty(); }

    /// The network input on its grid (input_q, 16 bits): `batch` images of `image_size` floats,
    /// kept here until the next call.
    const float* quantize_input(const float* input, int batch, std::size_t image_size);
    /// A conv layer's forward at its plan: `input` holds values on the producer's grid, `output` gets
    /// the dequantized fixed-point output. Keeps what backward needs (saturation, quantized weights).
    void conv_forward(const Layer& layer, int batch, const float* input, float* output);
    /// Zeroes the delta of every output value the last conv_forward saturated.
    void clip_output_delta(const Layer& layer, int batch, float* delta) const;
    /// Swaps `layer`'s float weights with the quantized ones the last forward used (call twice:
    /// before and after its backward, so the input delta flows through the forward's weights).
    void swap_weights(Layer& layer);
    /// Zeroes the accumulated gradient (and momentum) of every weight beyond its grid's range.
    void clip_weight_gradients(const Layer& layer, ConvGradients& gradients) const;

private:
    int input_bits_of(int layer) const;

    QuantizedNetwork plan_;
    std::vector<float> input_;                   // the quantized network input
    std::vector<std::vector<int16_t>> outputs_;  // by layer: the last forward's integer outputs
    std::vector<std::vector<float>> weights_;    // by layer: the last forward's dequantized weights
};

}  // namespace fpgacnn::train

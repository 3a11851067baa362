// fpgacnn-train --qat: what the tool adds around FakeQuantizer (runtime/src/train/fake_quant.hpp):
// batch-norm folded before training, the widths (--qat int16|int8 or a .fq16's), the exponents
// calibrated again every --qat-recalibrate iterations as fpgacnn-quantize would choose them for the
// current weights, the .fq16 written at the end, and the held-out score of --holdout.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/quant_accuracy.hpp"
#include "train/fake_quant.hpp"
#include "train/float_trainer.hpp"
#include "train_options.hpp"

namespace fpgacnn::train_tool {

/// The network as the fixed-point paths see it, trainable: batch-norm folded into the weights and the
/// layers marked plain convs (the statistics are frozen during QAT).
Network fold_for_qat(Network network);

/// `trained` (from fold_for_qat) in the layout of `cfg_network`'s cfg: a layer that had batch-norm gets
/// it back as scale 1, mean 0, variance 1 (darknet then divides by sqrt(1) + 1e-6: the weights it
/// folds are the trained ones times 1 / 1.000001).
Network unfold_for_cfg(Network trained, const Network& cfg_network);

/// The storage widths --qat asks for: every conv layer at --qat's bits, or those of --qat-plan's file.
std::vector<LayerWidths> qat_widths(const TrainOptions& options, const Network& network);

class QatSession {
public:
    /// `network`: the starting model, batch-norm folded (fold_for_qat); `training`: its options (with
    /// --qat-loss teacher a float copy of the model is kept as the teacher). `calibration_images`: the
    /// training images (their paths), on which every recalibration runs.
    QatSession(const TrainOptions& options, const Network& network, const train::TrainingOptions& training,
               std::vector<std::string> calibration_images);

    train::FakeQuantizer& quantizer() { return quantizer_; }
    /// Exponents for `network`'s current weights at the session's widths, handed to the quantizer.
    /// Returns the fixed-point model they make (quantize_network(network)) for a caller that needs it.
    QuantizedNetwork recalibrate(const Network& network);
    /// The fixed-point model of a .weights file (loaded as the tools load it), calibrated on the
    /// training images at the session's widths.
    QuantizedNetwork quantize_weights(const std::string& weights_path) const;
    /// The same for weights in memory (`network` as the trainer holds it, batch-norm folded).
    QuantizedNetwork quantize_network(const Network& network) const;

    /// --qat-loss teacher: one train_batch of `student` whose loss is half the squared distance of its
    /// [region] or [yolo] heads' outputs (activated: logistic x, y, objectness, softmax or logistic
    /// classes, raw w, h) to those of the float starting model on the same images: dense targets over
    /// every cell and anchor, so the model learns to make up for the quantization, not to fit a few
    /// images' boxes. `truth` is only handed on (the heads' own loss is computed and dropped). Returns
    /// the cost. With --qat-score-weight the detection scores' distance is added (score_distance.hpp).
    float teacher_step(train::FloatTrainer& student, const float* input, const float* truth);

private:
    CalibrationOptions calibration_options() const;

    std::string cfg_;
    std::vector<LayerWidths> widths_;
    std::vector<std::string> images_;
    train::FakeQuantizer quantizer_;
    std::unique_ptr<train::FloatTrainer> teacher_;  // the float starting model, forward only
    float score_weight_ = 0;                        // --qat-score-weight
};

/// Detections of the float model (`cfg` + `float_weights`) kept by `fixed_point` on `images`, with
/// fpgacnn-quantize's matching rule (evaluate_quantization), at thresh 0.25 and 0.5.
AccuracyReport score_against_float(const std::string& cfg, const std::string& float_weights,
                                   const QuantizedNetwork& fixed_point,
                                   const std::vector<std::string>& images);

}  // namespace fpgacnn::train_tool

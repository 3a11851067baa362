// How close the int16 path comes to the float reference: per layer SQNR (each path fed end to end
// from the same letterboxed image) and how many float detections the int16 path reproduces.
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/backend.hpp"
#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn {

/// One layer's output, int16 path against float, over every image evaluated.
struct FPGACNN_API LayerAccuracy {
    double signal_power = 0;   ///< sum of float^2 over all images
    double noise_power = 0;    ///< sum of (float - dequantized int16)^2
    double max_abs_error = 0;  ///< largest |float - dequantized int16| of any value
    /// 10 log10(signal / noise); +infinity when the outputs are identical.
    double sqnr_db() const;
};

/// At one detection threshold: how many of the float path's detections the int16 path reproduces.
struct FPGACNN_API DetectionAgreement {
    float thresh = 0;          ///< the detection threshold (AccuracyOptions::thresholds)
    int float_detections = 0;  ///< over all images, after NMS
    int int16_detections = 0;  ///< over all images, after NMS
    int reproduced = 0;        ///< float detections with an int16 one of the same class at IoU >= match_iou
    /// reproduced / float_detections (1 when the float path found nothing).
    double ratio() const {
        return float_detections == 0 ? 1.0 : static_cast<double>(reproduced) / float_detections;
    }
};

/// How evaluate_quantization() compares the two paths.
struct FPGACNN_API AccuracyOptions {
    std::vector<float> thresholds = {0.25f, 0.5f};  ///< detection thresholds, one DetectionAgreement each
    float nms = 0.45f;                              ///< NMS IoU threshold of both paths
    float match_iou = 0.5f;  ///< IoU at which an int16 detection reproduces a float one of its class
    bool progress = false;   ///< progress bar on stderr
};

/// What evaluate_quantization() measured.
struct FPGACNN_API AccuracyReport {
    std::vector<LayerAccuracy> layers;          ///< per network layer (region: its activated output)
    std::vector<DetectionAgreement> agreement;  ///< one per threshold
    int images = 0;                             ///< images evaluated
};

/// Runs both paths of `network` on each image and compares them: `reference` computes in float,
/// `fixed_point` in int16 (the CPU int16 backend, or a device keeping its layer outputs).
/// make_backend (fpgacnn/detector.hpp) makes both; taking them as arguments keeps quant below the
/// pipeline that builds backends.
FPGACNN_API AccuracyReport evaluate_quantization(const Network& network, Backend& reference,
                                                 Backend& fixed_point,
                                                 const std::vector<std::string>& image_paths,
                                                 const AccuracyOptions& options = {});

/// Float detections reproduced by `candidate`: greedy one-to-one matching in order of decreasing
/// probability, same class and IoU >= match_iou.
FPGACNN_API int count_reproduced(const std::vector<Detection>& reference,
                                 const std::vector<Detection>& candidate, float match_iou);

}  // namespace fpgacnn

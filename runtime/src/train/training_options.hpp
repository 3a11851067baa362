// The training options of a darknet cfg that the inference loader skips: [net]'s batch, solver and
// learning-rate policy, and each [region]'s and [yolo]'s loss options. Read with darknet's defaults
// (parse_net_options, parse_region in pjreddie's parser.c).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/cfg_parser.hpp"
#include "train/iou_loss.hpp"

namespace fpgacnn::train {

/// darknet's learning_rate_policy, spelled in the cfg as constant, step, steps, exp, poly, random,
/// sigmoid (anything else: darknet warns and goes with constant; here it is an error).
enum class RatePolicy { Constant, Step, Steps, Exp, Poly, Random, Sig };

struct SolverOptions {
    int batch = 1;         ///< images per forward/backward: the cfg's batch / subdivisions
    int subdivisions = 1;  ///< forward/backward passes per weight update
    float learning_rate = 0.001f;
    float momentum = 0.9f;
    float decay = 0.0001f;
    RatePolicy policy = RatePolicy::Constant;
    int burn_in = 0;
    float power = 4;  ///< read for every policy: burn_in and poly/random use it
    int step = 1;     ///< step, sigmoid
    float scale = 1;  ///< step
    std::vector<int> steps;
    std::vector<float> scales;
    float gamma = 1;  ///< exp, sigmoid
    int max_batches = 0;
    /// adam=1: darknet's Adam update (adam_update_gpu; its CPU update_convolutional_layer ignores
    /// adam, so its GPU semantics are followed as for the region loss) with B1, B2 and eps; momentum
    /// is then unused.
    bool adam = false;
    float b1 = 0.9f;
    float b2 = 0.999f;
    float eps = 0.0000001f;
    /// Images per weight update (darknet's update_args.batch = batch * subdivisions).
    int images_per_update() const { return batch * subdivisions; }
};

/// A [region] layer's loss options (parse_region's defaults).
struct RegionLossOptions {
    float object_scale = 1;
    float noobject_scale = 1;
    float class_scale = 1;
    float coord_scale = 1;
    float thresh = 0.5f;  ///< a prediction overlapping a truth by more than this gets no no-object delta
    bool rescore = false;
    bool bias_match = false;
};

/// A [yolo] layer's loss options (pjreddie's parse_yolo defaults; AlexeyAB's for his keys).
struct YoloLossOptions {
    float ignore_thresh =
        0.5f;                ///< a prediction overlapping a truth by more than this gets no objectness delta
    float truth_thresh = 1;  ///< above this it is trained towards that truth (1: never)
    int max_boxes = 90;      ///< `max`: truth boxes read an image (at most kMaxTruthBoxes)
    /// The section sets one of AlexeyAB's loss keys (scale_x_y, iou_loss, iou_normalizer,
    /// obj_normalizer, cls_normalizer, max_delta): his forward_yolo_layer's deltas and cost are used
    /// instead of pjreddie's (docs/darknet-semantics.md, "AlexeyAB's [yolo] loss").
    bool alexeyab = false;
    IouLoss iou_loss = IouLoss::Mse;
    float iou_normalizer = 0.75f;  ///< AlexeyAB's default
    float obj_normalizer = 1;
    /// Read as AlexeyAB reads it; his delta_yolo_class applies it only with counters_per_class
    /// (refused here), so it changes nothing.
    float cls_normalizer = 1;
    float max_delta = 3.40282347e38f;  ///< FLT_MAX: no clip of the IoU-loss box deltas
};

/// Options darknet's parser reads for every layer.
struct LayerTrainingOptions {
    float learning_rate_scale =
        1;                       ///< the section's `learning_rate`: multiplies the net's rate in its update
    bool stop_backward = false;  ///< `stopbackward=1`: backward_network stops after this layer
};

struct TrainingOptions {
    SolverOptions solver;
    std::map<int, RegionLossOptions> regions;  ///< by layer index
    std::map<int, YoloLossOptions> yolos;      ///< by layer index
    std::vector<LayerTrainingOptions> layers;  ///< by layer index
};

/// Reads the options from a tokenised cfg (section s + 1 is layer s). Throws Error naming the file
/// and line for values darknet would misread (a policy it does not know, steps without scales) and
/// for what is not implemented (adam, onlyforward, smooth, AlexeyAB's [yolo] loss options).
TrainingOptions read_training_options(const model::CfgFile& cfg);

/// get_current_rate: the learning rate of update number `batch_num` (seen / images_per_update).
/// `uniform01` is the draw of the random policy (darknet: rand_uniform(0, 1)); others ignore it.
float current_learning_rate(const SolverOptions& solver, std::uint64_t batch_num, float uniform01 = 0.5f);

}  // namespace fpgacnn::train

// Training on the accelerator's array (issue 36): the forward (FP), backward (BP: the input delta) and
// weight-gradient (WG) phases of every conv layer of a plan, timed with the planner's latency model
// on the same Tm x Tn array, and each phase's utilization = useful MACs / (Tm * Tn * cycles). The
// dataflows are the kernel's (docs/training-utilization.md; BP: Tm over the forward input channels,
// Tn over the output channels, stride > 1 split into S * S stride classes so no cycle multiplies an
// inserted zero; WG: Tm over output channels, Tn over input channels, the K x K taps as the "output
// pixels", the error tiled as the large "kernel", the gradient summed over the batch on chip).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn {

/// What a training estimate assumes beyond the plan's PlanOptions.
struct FPGACNN_API TrainingOptions {
    int batch = 32;  ///< images per weight update: FP and BP run image by image, WG sums over them
    /// > 0: weights (and the weight gradient) have a memory of their own at this bandwidth, GB/s, beside
    /// PlanOptions::bandwidth_gbs for the feature maps; 0: one memory for both (every FPGA board here).
    double weight_bandwidth_gbs = 0;
    /// Also time the BP of the first conv layer (the delta of the image, which training never uses).
    bool first_layer_delta = false;
    /// Jobs take the same tile of several images when a map is smaller than the Tr x Tc tile (as many
    /// as it holds): in FP and BP one weight block serves them all (the batch reuse of a training
    /// accelerator whose weights come from a slower memory), in WG one pass sums them all. The kernel as
    /// built runs one image per tile (false).
    bool fold_batch = false;
    /// FP and BP: the input windows of every input channel stay on chip across the output-map groups
    /// of a tile (loaded once, with the first group's jobs), as in a design with buffers for all of
    /// them; the kernel as built holds Tn channels and loads them again for each group of Tm outputs
    /// (false).
    bool resident_inputs = false;
    /// WG keeps the 64-bit sums of as many input-channel groups as one accumulator bank holds, loads
    /// the dY tile once for all their input windows, and overlaps its loads with the passes (FP's job
    /// pipeline); the kernel as built sums one Tm x Tn block, reloads the dY tile for every group of Tn
    /// inputs and does not overlap WG's loads (false).
    bool wg_reuse = false;
};

/// One phase of one conv layer (or a sum of them) over a whole batch.
struct FPGACNN_API PhaseEstimate {
    std::uint64_t useful_macs = 0;  ///< N * M * K * K * R * C per image, times the batch
    double compute_cycles = 0;      ///< the array's pipeline busy
    double total_cycles = 0;        ///< with loads, stores and their overlap
    double milliseconds = 0;        ///< total_cycles at the plan's clock
    /// useful_macs / (array_macs * total_cycles); 0 for no cycles.
    double utilization(int array_macs) const;
    /// Adds another phase's MACs, cycles and time (a network's sum of its layers).
    PhaseEstimate& operator+=(const PhaseEstimate& other);
};

/// The three phases of one conv layer of the plan.
struct FPGACNN_API TrainingLayerEstimate {
    int index = 0;                  ///< network layer index
    PhaseEstimate forward;          ///< FP: the layer's planned command, image by image
    PhaseEstimate backward;         ///< zero cycles and MACs when not timed (the first conv layer)
    PhaseEstimate weight_gradient;  ///< WG: the weight gradient summed over the batch
    int stride_classes = 1;         ///< BP passes per tile: S * S row / column classes with taps
};

/// Every conv layer's phases and their sums.
struct FPGACNN_API TrainingEstimate {
    TrainingOptions options;                    ///< what the estimate assumed
    int array_macs = 0;                         ///< Tm * Tn
    double clock_mhz = 0;                       ///< the plan's kernel clock
    std::vector<TrainingLayerEstimate> layers;  ///< every conv layer of the plan, in order
    PhaseEstimate forward;                      ///< FP of every conv layer
    PhaseEstimate backward;                     ///< BP of every conv layer whose delta is timed
    PhaseEstimate weight_gradient;              ///< WG of every conv layer
    /// BP and WG together (the "backward" utilization of training-accelerator papers).
    PhaseEstimate backward_and_gradient() const;
    /// All three phases.
    PhaseEstimate overall() const;
};

/// Times FP, BP and WG of every conv layer of `plan` (made by plan_network for the same kernel build)
/// for one batch. Layers other than conv (maxpool, route, shortcut, the host layers) are not counted.
/// The loops are the kernel's BP and WG command modes (kernels/src/conv_train.hpp). Throws Error when
/// the batch is not positive or the weight bandwidth negative.
FPGACNN_API TrainingEstimate estimate_training(const NetworkPlan& plan, const TrainingOptions& options);

/// The per-layer table `fpgacnn-plan --train` prints: time and utilization of each phase of every conv
/// layer, then the network's sums (`plan`: the one the estimate was made from).
FPGACNN_API std::string format_training_table(const NetworkPlan& plan, const TrainingEstimate& estimate);

}  // namespace fpgacnn

// fpgacnn-quantize --explore: which conv layers can store 8-bit weights and outputs (issue 16), as a
// search over width choices scored by accuracy against float (detections reproduced, region SQNR),
// weight bytes, the planner's predicted FPGA frame time and the measured CPU time of one frame.
//
// The search is greedy in sensitivity order over "moves", a move being one conv layer's weights or
// its output narrowed to 8 bits: each move alone (its sensitivity), then the moves applied
// cumulatively from the least to the most sensitive. That is 4N evaluations for N conv layers, each
// a re-quantisation from one float calibration pass plus an accuracy run, so it is deterministic and
// takes seconds on YOLO-LITE; a multi-objective evolutionary or Bayesian search (NN-EdgeBuilder)
// would need hundreds of evaluations to beat it on models this small.
//
// Beside the search, a sensitivity study puts each move alone at 8, 6 and 4 bits: 6 and 4 are the
// contract's study widths (arith::is_study_width), which only the CPU backend runs, so they are
// measured but never part of the search, the front or the chosen model file.
#pragma once

#include <cstddef>
#include <iterator>
#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/quant_accuracy.hpp"

namespace fpgacnn::quantize {

struct ExploreOptions {
    /// The chosen point: the fewest weight bytes (then the fastest FPGA prediction, then the smallest
    /// loss) whose detection loss against float is at most this many percent.
    double max_loss_percent = 5.0;
    /// The detection threshold the model will run at (fpgacnn-quantize --thresh; every tool's default
    /// is 0.5): the loss is scored there. A choice scored over several thresholds could lose more at
    /// this one than --max-loss allows (issue 36: YOLO-LITE lost 10 % at 0.5 within a 5 % mean).
    float thresh = 0.5f;
    int timing_runs = 5;  // one-frame CPU runs per point; the median counts
    bool progress = false;
};

/// One conv layer's weights (or its output) at 8 bits (in the study: at StudyRow::bits).
struct WidthMove {
    int layer = 0;
    bool weights = true;  // false: the output
};

struct WidthPoint {
    std::string label;                // "int16", "layer 4 weights", "3 least sensitive", "all int8"
    std::vector<WidthMove> moves;     // what is narrowed
    std::vector<LayerWidths> widths;  // per layer, as given to calibration
    AccuracyReport accuracy;
    double loss_percent = 0;        // float detections not reproduced at ExploreOptions::thresh, in %
    double other_loss_percent = 0;  // the same at other_threshold(thresh), reported, not scored
    double region_sqnr_db = 0;
    double lowest_sqnr_db = 0;     // over every layer
    std::size_t weight_bytes = 0;  // conv weights at their width plus 16-bit biases
    double cpu_ms = 0;             // median one-frame time on the CPU backend
    double planner_ms = 0;         // the FPGA kernel's predicted frame time (plan_network's latency model)
    bool on_front = false;         // not dominated in (loss, weight bytes, planner time, CPU time)
};

/// One move alone at one width: how sensitive that tensor is to being stored in `bits` bits.
struct StudyRow {
    WidthMove move;
    int bits = 8;  // 8 (the move's own point), or a study width (6, 4) simulated on the CPU
    double loss_percent = 0;
    double region_sqnr_db = 0;
    double layer_sqnr_db = 0;  // the moved layer's own output
};

/// WidthExploration::study holds this many rows per move, in layer order: 8 bits, then each study width.
inline constexpr std::size_t kStudyRowsPerMove = 1 + std::size(arith::kStudyWidths);

/// The threshold reported beside the scored one: 0.25 (darknet's detector default), or 0.5 when the
/// model runs at 0.25.
float other_threshold(float thresh);

/// A move's short name in the reports and the plot: "4w" (layer 4's weights), "6o" (layer 6's output).
std::string move_tag(const WidthMove& move);

struct WidthExploration {
    std::vector<WidthPoint> points;            // int16, then each move alone, then the greedy prefixes
    std::vector<StudyRow> study;               // kStudyRowsPerMove per move (in layer order)
    std::vector<WidthMove> sensitivity_order;  // least sensitive first
    std::size_t chosen = 0;                    // index into points
    bool chosen_within_loss = true;            // false: no point met --max-loss (the int16 one is chosen)
    ExploreOptions options;
    std::string cpu;            // the CPU path the times were measured on
    std::string planner_build;  // the kernel build and clock the planner times are predicted for
};

/// Runs the exploration; `calibration_result` receives the chosen point's calibration (to be saved).
WidthExploration explore_widths(const Network& network, const std::vector<std::string>& images,
                                const CalibrationOptions& calibration_options, const ExploreOptions& options,
                                CalibrationResult& chosen);

}  // namespace fpgacnn::quantize

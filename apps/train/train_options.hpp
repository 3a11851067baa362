// fpgacnn-train's command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace fpgacnn::train_tool {

struct TrainOptions {
    std::string cfg;
    std::string weights;  ///< empty: darknet's random initialisation of a fresh network (--seed)
    std::string data;     ///< --data LIST
    std::string distill;  ///< --distill DIR (instead of --data)
    float thresh = 0.5f;  ///< --distill's detection threshold
    std::string out;
    int max_batches = 0;  ///< 0: the cfg's max_batches
    int iterations = 0;   ///< 0: no limit but max_batches; else at most this many in this run
    bool clear = false;   ///< start at iteration 0 instead of the --weights file's `seen` (darknet's -clear)
    bool no_augment = false;
    std::uint64_t seed = 1;
    int checkpoint_every = 0;  ///< iterations between checkpoints; 0: only at the end and on Ctrl-C
    std::string checkpoint;    ///< the checkpoint file; empty: <out>.checkpoint
    std::string resume;
    std::string log;             ///< JSON lines, one object an iteration
    std::string plot;            ///< loss-curve PNG
    std::string device = "cpu";  ///< where conv layers' BP and WG run (train/device_gradients.hpp)
    // --qat (qat_session.hpp): quantization-aware training
    std::string qat;                   ///< "int16" or "int8": every conv layer's width; empty: float training
    std::string qat_plan;              ///< a .fq16 whose per-layer widths to train at (instead of --qat's)
    int qat_recalibrate = 10;          ///< iterations between recalibrations of the exponents
    std::string qat_loss = "teacher";  ///< "teacher" (the float model's raw outputs) or "labels"
    float qat_score_weight = 0;  ///< teacher loss: weight of the detection-score term (score_distance.hpp)
    std::string qat_out;         ///< the .fq16 to write; empty: <out> with the extension .fq16
    bool qat_equalize = false;   ///< cross-layer equalization of the starting weights (equalization.hpp)
    std::vector<std::string> holdout;       ///< images (files, folders) to score the fixed-point result on
    std::vector<std::string> qat_validate;  ///< images (files, folders) that choose the iteration kept
    int qat_validate_every = 10;            ///< iterations between two scorings on qat_validate
    int verbosity = 0;
    bool quiet = false;

    bool qat_enabled() const { return !qat.empty() || !qat_plan.empty(); }
    std::string qat_out_path() const;
    std::string checkpoint_path() const { return checkpoint.empty() ? out + ".checkpoint" : checkpoint; }
};

void add_train_options(CLI::App& app, TrainOptions& options);

}  // namespace fpgacnn::train_tool

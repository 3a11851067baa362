// fpgacnn-train's command line.
#pragma once

#include <cstdint>
#include <string>

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
    int verbosity = 0;
    bool quiet = false;

    std::string checkpoint_path() const { return checkpoint.empty() ? out + ".checkpoint" : checkpoint; }
};

void add_train_options(CLI::App& app, TrainOptions& options);

}  // namespace fpgacnn::train_tool

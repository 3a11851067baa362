// fpgacnn-train's checkpoint: everything an interrupted run needs to continue as if it had not
// stopped — every conv layer's parameters (batch-norm rolling statistics included), the gradients that
// carry the momentum between updates, darknet's `seen`, and the data position with its generator.
// darknet's own backups (.weights) keep the parameters and `seen` only, so a run resumed from one
// restarts the momentum at zero; this file does not.
#pragma once

#include <string>

#include "train/float_trainer.hpp"

namespace fpgacnn::train_tool {

/// Writes the trainer's state and `data_state` (BatchSource::state()) to `path`, via a temporary
/// file and a rename. Throws Error naming the path.
void save_checkpoint(const std::string& path, const train::FloatTrainer& trainer,
                     const std::string& data_state);

/// Restores a checkpoint into `trainer` (made from the same cfg) and returns its data state. Throws
/// Error naming the file for another format, another cfg's shapes or a truncated file.
std::string load_checkpoint(const std::string& path, train::FloatTrainer& trainer);

}  // namespace fpgacnn::train_tool

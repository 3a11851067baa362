// fpgacnn-serve's model repository (--model-repository DIR, the layout Triton users know): one folder
// per model, named as the model, holding a model.json that names the model's files and how to run
// it (docs/tools/fpgacnn-serve.md). A malformed folder is reported and skipped; the others serve.
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/backend.hpp"

namespace fpgacnn::serve {

/// One model of the repository, its paths made absolute (relative ones are relative to its folder).
struct ModelConfig {
    std::string name;       // the folder's name: the {name} of the protocol's routes
    std::string folder;     // absolute
    std::string cfg;        // darknet .cfg
    std::string weights;    // darknet .weights; optional when `quantized` is given
    std::string names;      // class names, one per line
    std::string quantized;  // optional .fq16 from fpgacnn-quantize
    /// As --device, one value or a list (instances spread over them in turn); "auto": every usable
    /// accelerator of the host, else the CPU.
    std::vector<std::string> devices = {"auto"};
    Precision precision = Precision::Auto;
    int instances = 1;    // Detectors serving this model (spread over the usable devices)
    float thresh = 0.5f;  // defaults of a request's `thresh` and `nms` parameters, as fpgacnn-detect's
    float nms = 0.45f;
};

/// The file every model folder holds.
inline constexpr const char* kModelFile = "model.json";
/// Instances per model at most (each one is a Detector with its own buffers).
inline constexpr int kMaxInstances = 64;

/// Parses one folder's model.json text; `folder` resolves relative paths and names the model. Throws
/// Error "<folder>/model.json: <what is wrong>; <what to do>" for malformed JSON, unknown keys (a
/// misspelt key would otherwise be ignored silently), wrong types or values, missing files.
ModelConfig parse_model_config(const std::string& folder, const std::string& json_text);

struct RepositoryScan {
    std::vector<ModelConfig> models;    // sorted by name
    std::vector<std::string> problems;  // one line per skipped folder or file, naming it
};

/// Every model folder of `repository`, in name order. Throws Error when the repository itself is not
/// a readable folder; a folder that is not a valid model becomes a line of `problems` instead.
RepositoryScan scan_model_repository(const std::string& repository);

}  // namespace fpgacnn::serve

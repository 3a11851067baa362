// fpgacnn-classify's flags.
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/backend.hpp"

namespace CLI {
class App;
}

namespace fpgacnn::classify {

/// darknet's ImageNet short labels, the --labels default when Debian's darknet is installed.
inline constexpr const char* kDefaultLabels = "/usr/share/darknet/data/imagenet.shortnames.list";

struct ClassifyOptions {
    std::string cfg;
    std::string weights;
    std::string labels;  ///< empty: kDefaultLabels when it exists, else class_<id>
    std::string input_size;
    std::string device = "auto";
    Precision precision = Precision::Auto;
    std::string quantized;
    int top = 5;
    bool json = false;
    int verbosity = 0;
    bool quiet = false;
    std::vector<std::string> images;
};

void add_classify_options(CLI::App& app, ClassifyOptions& options);

}  // namespace fpgacnn::classify

// fpgacnn-quantize's command line.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace fpgacnn::quantize {

struct QuantizeOptions {
    std::string cfg;
    std::string weights;
    std::string input_size;           // "WxH", empty: the cfg's
    std::vector<std::string> images;  // files or folders; empty: darknet's sample images
    double percentile = 100.0;
    int activation_margin_bits = 1;
    double accumulator_margin_bits = 2.0;
    std::string out;
    bool report = false;
    bool json = false;
    int verbosity = 0;
    bool quiet = false;
};

void add_quantize_options(CLI::App& app, QuantizeOptions& options);

}  // namespace fpgacnn::quantize

// fpgacnn-quantize's command line.
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/calibration.hpp"

namespace CLI {
class App;
}

namespace fpgacnn::quantize {

struct QuantizeOptions {
    std::string cfg;
    std::string weights;
    std::string input_size;           // "WxH", empty: the cfg's
    std::vector<std::string> images;  // files or folders; empty: darknet's sample images
    double percentile = 100.0;
    int activation_margin_bits = 1;
    double accumulator_margin_bits = 2.0;
    int bits = 16;         // --precision: every conv layer's width unless --widths says otherwise
    std::string widths;    // --widths "L=B,L=W/O": per conv layer
    bool explore = false;  // --explore: search the widths (width_explorer.hpp), write the chosen point
    double max_loss_percent = 5.0;
    float thresh = 0.5f;    // --thresh with --explore: the threshold the loss is scored at
    std::string plot;       // --plot FILE.png with --explore
    bool equalize = false;  // --equalize: cross-layer equalization before calibration (equalization.hpp)

    std::string out;
    bool report = false;
    bool json = false;
    int verbosity = 0;
    bool quiet = false;
};

void add_quantize_options(CLI::App& app, QuantizeOptions& options);

/// The calibration widths of --precision and --widths for `network`: every conv layer at `bits`, then
/// each "L=B" (weights and output of conv layer L at B bits) or "L=W/O" (weights W, output O bits).
/// Throws Error naming the item for a layer that is not a conv layer, or a width other than 16 / 8.
std::vector<LayerWidths> widths_from_flags(const Network& network, int bits, const std::string& spec);

}  // namespace fpgacnn::quantize

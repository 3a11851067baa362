#include "quantize_options.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "../common/flag_checks.hpp"
#include "fpgacnn/error.hpp"

namespace fpgacnn::quantize {

void add_quantize_options(CLI::App& app, QuantizeOptions& options) {
    app.add_option("--cfg", options.cfg, "darknet network .cfg")->required()->check(CLI::ExistingFile);
    app.add_option("--weights", options.weights, "darknet .weights matching the cfg")
        ->required()
        ->check(CLI::ExistingFile);
    apps::add_input_size_option(app, options.input_size,
                                "network input size WxH, overriding the cfg (e.g. 416x416)");
    app.add_option("--images", options.images,
                   "calibration images: files and/or folders (default: darknet's dog, person, horses, kite, "
                   "eagle, giraffe samples)")
        ->check(CLI::ExistingPath);
    app.add_option(
           "--percentile", options.percentile,
           "per layer, the % of float activations that must fit without saturating (100 = the maximum)")
        ->check(apps::finite_range(50.0, 100.0))
        ->capture_default_str();
    app.add_option(
           "--activation-margin", options.activation_margin_bits,
           "bits of headroom above the largest calibration activation (against saturation on other images)")
        ->check(CLI::Range(0, 8))
        ->capture_default_str();
    app.add_option("--accumulator-margin", options.accumulator_margin_bits,
                   "bits the int32 accumulators stay below the wrap on the calibration images")
        ->check(apps::finite_range(0.0, 8.0))
        ->capture_default_str();
    app.add_option("--precision", options.bits,
                   "storage width of every conv layer's weights and outputs: 16 (int16) or 8 (int8); "
                   "docs/arithmetic.md, \"Per-layer widths\"")
        ->transform(CLI::Transformer({{"int16", "16"}, {"int8", "8"}}))
        ->check(CLI::IsMember({16, 8}))
        ->default_str("int16");
    app.add_option(
        "--widths", options.widths,
        "per conv layer, overriding --precision: comma-separated L=B (weights and output of layer "
        "L at B bits) or L=W/O (weights W, output O bits); e.g. --precision int8 --widths 0=16,14=16");
    app.add_flag("--equalize", options.equalize,
                 "balance the weight ranges of consecutive conv layers before calibration (cross-layer "
                 "equalization; the network computes the same, the file still binds to --weights); "
                 "docs/arithmetic.md, \"Cross-layer equalization\"");
    auto* explore = app.add_flag(
        "--explore", options.explore,
        "search which conv layers can be 8-bit: each alone, then cumulatively from the least sensitive; "
        "prints every choice's detection loss, SQNR, weight bytes and CPU time, and writes the chosen one");
    app.add_option("--max-loss", options.max_loss_percent,
                   "--explore: the chosen choice has the fewest weight bytes among those losing at most this "
                   "% of the float detections")
        ->check(apps::finite_range(0.0, 100.0))
        ->capture_default_str()
        ->needs(explore);
    app.add_option("--thresh", options.thresh,
                   "--explore: the detection threshold the model will run at (every tool's default 0.5): "
                   "the loss is scored there; the other of 0.25 / 0.5 is reported beside it")
        ->check(apps::finite_range(0.001, 0.999))
        ->capture_default_str()
        ->needs(explore);
    app.add_option("--plot", options.plot,
                   "--explore: a PNG of accuracy against weight bytes and CPU time, the front and the choice")
        ->needs(explore);
    app.add_option("--out", options.out, "the quantized model file to write")->required();
    app.add_flag("--report", options.report,
                 "also run float and int16 on the calibration images: per-layer SQNR, detection agreement");
    app.add_flag("--json", options.json, "print the result (and report) as one JSON object on stdout");
    app.add_flag("-v,--verbose", options.verbosity, "more log output on stderr (-vv for trace)");
    app.add_flag("-q,--quiet", options.quiet, "only errors on stderr (no progress bar)");
}

namespace {

int parse_bits(const std::string& text, const std::string& item) {
    if (text == "16" || text == "8") return std::stoi(text);
    throw Error(fmt::format("--widths {}: width '{}' bits; the contract stores 16 or 8", item, text));
}

}  // namespace

std::vector<LayerWidths> widths_from_flags(const Network& network, int bits, const std::string& spec) {
    std::vector<LayerWidths> widths = uniform_conv_widths(network, bits);
    std::size_t begin = 0;
    while (begin < spec.size()) {
        const std::size_t end = std::min(spec.find(',', begin), spec.size());
        const std::string item = spec.substr(begin, end - begin);
        begin = end + 1;
        const std::size_t equals = item.find('=');
        std::size_t layer = network.layers.size();
        try {
            std::size_t used = 0;
            layer = std::stoul(item.substr(0, equals), &used);
            if (used != equals) layer = network.layers.size();
        } catch (const std::logic_error&) {  // not a number
        }
        if (equals == std::string::npos || layer >= network.layers.size() ||
            network.layers[layer].type != LayerType::Convolutional) {
            throw Error(
                fmt::format("--widths {}: expected L=B or L=W/O with L a convolutional layer of {} "
                            "(fpgacnn-plan or fpgacnn-quantize --report lists them)",
                            item, network.cfg_path));
        }
        const std::string value = item.substr(equals + 1);
        const std::size_t slash = value.find('/');
        widths[layer].weight_bits = parse_bits(value.substr(0, slash), item);
        widths[layer].output_bits = slash == std::string::npos ? widths[layer].weight_bits
                                                               : parse_bits(value.substr(slash + 1), item);
    }
    return widths;
}

}  // namespace fpgacnn::quantize

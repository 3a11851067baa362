// The arithmetic contract's exponent rules (docs/arithmetic.md) on a QuantizedNetwork, checked layer
// by layer in network order so the first broken layer is named. validate_quantized_network is the
// one check for every path: the quantized file reader and writer, calibration and the int16 engine,
// so a model that breaks the contract is refused before it runs on any backend (devices run what
// they are given). check_exponent_rules adds the int16 kernels' conv shape checks.
#include "int16/exponent_rules.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "fpgacnn/error.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

namespace {

constexpr const char* kFix = "re-run calibration (fpgacnn-quantize); see docs/arithmetic.md";

class LayerChecker {
public:
    LayerChecker(const QuantizedNetwork& quantized, std::size_t index, const std::string& where,
                 WidthScope scope)
        : quantized_(quantized),
          scope_(scope),
          layer_(quantized.network.layers[index]),
          q_(quantized.layers[index]),
          weight_count_(quantized_weight_count(quantized, index)),
          bias_count_(quantized_bias_count(quantized, index)) {
        name_ = fmt::format("{}: layer {} ({}", where, index, layer_type_name(layer_.type));
        if (layer_.cfg_line > 0) name_ += fmt::format(", cfg line {}", layer_.cfg_line);
        name_ += ")";
    }

    [[noreturn]] void fail(const std::string& what) const { throw Error(name_ + ": " + what + "; " + kFix); }

    void exponent_in_range(int q, const char* what) const {
        if (q >= arith::kMinExponent && q <= arith::kMaxExponent) return;
        fail(fmt::format("{} exponent {} is outside the contract's range [{}, {}]", what, q,
                         arith::kMinExponent, arith::kMaxExponent));
    }

    void equal(const char* what_a, int a, const std::string& what_b, int b, const char* rule) const {
        if (a == b) return;
        fail(fmt::format("{} = {} but {} = {}: {}", what_a, a, what_b, b, rule));
    }

    void shift_in_range(const char* formula, int shift, int low, int high) const {
        if (shift >= low && shift <= high) return;
        fail(fmt::format("{} = {} is outside [{}, {}]", formula, shift, low, high));
    }

    // Every layer but a route reads one tensor: its producer's output, or the image for layer 0.
    void input_matches_producer(std::size_t index) const {
        if (index == 0) {
            equal("its input_q", q_.input_q, "the network input_q", quantized_.input_q,
                  "the first layer reads the quantized image as is");
        } else {
            equal("its input_q", q_.input_q, fmt::format("output_q of layer {}", index - 1),
                  quantized_.layers[index - 1].output_q, "a layer reads its predecessor's output as is");
        }
    }

    void storage_width(int bits, const char* what) const {
        if (arith::is_storage_width(bits)) return;
        if (arith::is_study_width(bits)) {
            if (scope_ == WidthScope::CpuStudy) return;
            // Not kFix: re-running calibration at this width would not help; the width is the problem.
            throw Error(
                fmt::format("{}: {} width {} bits is a study width (fpgacnn-quantize --explore) that "
                            "only the CPU backend runs; model files and devices take {} or {} bits",
                            name_, what, bits, arith::kDataBits, arith::kNarrowBits));
        }
        fail(fmt::format("{} width {} bits: the contract stores {} or {} bits", what, bits, arith::kDataBits,
                         arith::kNarrowBits));
    }

    // Layers that only move values (maxpool, reorg, region) write them at the width they read.
    void width_carried_from_producer(std::size_t index) const {
        const int input_bits = int16_detail::layer_input_bits(quantized_, index);
        equal("its output_bits", q_.output_bits,
              index == 0 ? std::string("the network input's")
                         : fmt::format("output_bits of layer {}", index - 1),
              input_bits, "this layer moves values without changing their width");
    }

    void route_sources_share_width() const {
        for (const int source : layer_.route().inputs) {
            equal("its output_bits", q_.output_bits, fmt::format("output_bits of its input layer {}", source),
                  quantized_.layers[static_cast<std::size_t>(source)].output_bits,
                  "a route concatenates stored values, so every input must share its width");
        }
    }

    void route_sources_share_exponent(std::size_t index) const {
        for (const int source : layer_.route().inputs) {
            if (source < 0 || static_cast<std::size_t>(source) >= index) {
                fail(fmt::format("route input {} is not an earlier layer", source));
            }
            equal("its output_q", q_.output_q, fmt::format("output_q of its input layer {}", source),
                  quantized_.layers[static_cast<std::size_t>(source)].output_q,
                  "a route concatenates int16 values, so every input must share its exponent");
        }
    }

    void conv_parameters() const {
        exponent_in_range(q_.weight_q, "weight");
        exponent_in_range(q_.bias_q, "bias");
        const ConvParams& conv = layer_.conv();
        const std::size_t weights =
            static_cast<std::size_t>(conv.filters) * layer_.input.c * conv.size * conv.size;
        const auto biases = static_cast<std::size_t>(conv.filters);
        if (weight_count_ != weights || bias_count_ != biases) {
            fail(fmt::format("{} weights and {} biases, the cfg needs {} and {}", weight_count_, bias_count_,
                             weights, biases));
        }
        const int accumulator_q = q_.weight_q + q_.input_q;
        shift_in_range("bias shift Qw + Qin - Qb", accumulator_q - q_.bias_q, arith::kModelMinBiasShift,
                       arith::kModelMaxBiasShift);
        shift_in_range("output shift Qw + Qin - Qout", accumulator_q - q_.output_q,
                       arith::kModelMinOutputShift, arith::kModelMaxOutputShift);
    }

    void no_parameters() const {
        if (weight_count_ != 0 || bias_count_ != 0) {
            fail(
                fmt::format("carries {} weights and {} biases, but only convolutional layers have parameters",
                            weight_count_, bias_count_));
        }
    }

    void check(std::size_t index) const {
        if (layer_.type == LayerType::Unsupported) {
            throw Error(name_ + ": [" + std::get<UnsupportedParams>(layer_.params).section +
                        "] is parsed for planning only (fpgacnn-plan); fpgacnn does not run it");
        }
        exponent_in_range(q_.input_q, "input");
        exponent_in_range(q_.output_q, "output");
        storage_width(q_.output_bits, "output");
        if (layer_.type == LayerType::Convolutional) {
            input_matches_producer(index);
            conv_parameters();
            storage_width(q_.weight_bits, "weight");
            // Where the weights stay in the model file, ResidentLayer checks them as it reads them.
            require_weights_fit_width(q_, name_);
            return;
        }
        no_parameters();
        equal("its weight_bits", q_.weight_bits, "the default", arith::kDataBits,
              "only convolutional layers have weights");
        if (layer_.type == LayerType::Shortcut) {
            // It rescales: its own output_q; both operands are aligned exactly (docs/arithmetic.md).
            input_matches_producer(index);
            width_carried_from_producer(index);
            const int from = layer_.shortcut().from;
            if (from < 0 || static_cast<std::size_t>(from) >= index) {
                fail(fmt::format("shortcut from {} is not an earlier layer", from));
            }
            const int sum_q =
                std::max(q_.input_q, quantized_.layers[static_cast<std::size_t>(from)].output_q);
            if (q_.output_q > sum_q + kShortcutMaxOutputGain) {
                fail(fmt::format("output_q {} is more than {} above its operands' finer exponent {}",
                                 q_.output_q, kShortcutMaxOutputGain, sum_q));
            }
            return;
        }
        if (layer_.type == LayerType::Route) {
            route_sources_share_exponent(index);
            route_sources_share_width();
        } else {
            input_matches_producer(index);
            width_carried_from_producer(index);
        }
        // Maxpool, reorg, region and route move int16 values without rescaling them.
        const char* rule = layer_.type == LayerType::Region || layer_.type == LayerType::Yolo
                               ? "the output layer passes its int16 input through to the host"
                               : "this layer moves int16 values without rescaling them";
        equal("its input_q", q_.input_q, "its output_q", q_.output_q, rule);
    }

private:
    const QuantizedNetwork& quantized_;
    WidthScope scope_;
    const Layer& layer_;
    const QuantizedLayer& q_;
    std::size_t weight_count_;  // as stored: in memory or in the model file
    std::size_t bias_count_;
    std::string name_;
};

}  // namespace

void validate_quantized_network(const QuantizedNetwork& quantized, const std::string& where,
                                WidthScope scope) {
    const Network& network = quantized.network;
    if (quantized.layers.size() != network.layers.size()) {
        throw Error(
            fmt::format("{}: {} quantized layers for a network of {}; the quantized model does not "
                        "match its cfg",
                        where, quantized.layers.size(), network.layers.size()));
    }
    if (quantized.input_q < arith::kMinExponent || quantized.input_q > arith::kMaxExponent) {
        throw Error(
            fmt::format("{}: the network has input exponent {}, outside the contract's range [{}, {}]; {}",
                        where, quantized.input_q, arith::kMinExponent, arith::kMaxExponent, kFix));
    }
    for (std::size_t i = 0; i < network.layers.size(); ++i) LayerChecker(quantized, i, where, scope).check(i);
}

}  // namespace fpgacnn

namespace fpgacnn::int16_detail {

int layer_input_bits(const QuantizedNetwork& network, std::size_t index) {
    return index == 0 ? arith::kNetworkInputBits : network.layers[index - 1].output_bits;
}

void check_exponent_rules(const QuantizedNetwork& network) {
    // The CPU engine also runs the study widths of fpgacnn-quantize --explore (arith::is_study_width).
    validate_quantized_network(
        network, network.network.cfg_path.empty() ? "quantized network" : network.network.cfg_path,
        WidthScope::CpuStudy);
    // Parameters left in the model file: the engine checks each conv as it reads and packs it (the
    // counts were checked against the shapes above).
    if (network.parameter_source) return;
    const std::vector<Layer>& layers = network.network.layers;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (layers[i].type == LayerType::Convolutional)
            (void)int16_conv_args(layers[i], network.layers[i], layer_input_bits(network, i));
    }
}

}  // namespace fpgacnn::int16_detail

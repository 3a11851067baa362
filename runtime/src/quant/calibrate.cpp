// Calibration flow: float statistics over the calibration images, then exponents under the
// contract's constraints, then the int16 parameters.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "fpgacnn/calibration.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/float_engine.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/kernel/arithmetic.hpp"
#include "fpgacnn/progress_bar.hpp"
#include "int16/activation_code.hpp"
#include "quant/activation_histogram.hpp"
#include "quant/conv_exponents.hpp"
#include "quant/layer_widths.hpp"

namespace fpgacnn {

namespace {

/// The output layers whose int16 input the host dequantizes and activates in float.
bool is_host_activated(LayerType type) {
    return type == LayerType::Region || type == LayerType::Yolo || type == LayerType::Softmax;
}

void require_calibratable(const Network& network) {
    if (network.layers.empty()) throw Error(network.cfg_path + ": the network has no layers");
    if (!network.weights_loaded) {
        throw Error(network.cfg_path + ": no weights loaded; calibration needs the trained .weights");
    }
    for (const Layer& layer : network.layers) {
        if (layer.type == LayerType::Unsupported) {
            throw Error(network.cfg_path + ": layer " + std::to_string(layer.index) + " [" +
                        std::get<UnsupportedParams>(layer.params).section +
                        "] is parsed for planning only (fpgacnn-plan); fpgacnn does not run it");
        }
        // Fixed point runs linear, leaky and relu (folded into the requantization); the others stay float.
        const bool shortcut = layer.type == LayerType::Shortcut;
        if (shortcut || layer.type == LayerType::Convolutional) {
            const Activation activation = shortcut ? layer.shortcut().activation : layer.conv().activation;
            const std::string what = network.cfg_path + ": layer " + std::to_string(layer.index) + " (" +
                                     layer_type_name(layer.type) + ")";
            if (shortcut) {
                int16_detail::fixed_point_activation(activation, what);
            } else {
                int16_detail::conv_fixed_point_activation(activation, what);
            }
        }
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& conv = layer.conv();
        if (conv.batch_normalize && !conv.bn_folded()) {
            throw Error(network.cfg_path + ": layer " + std::to_string(layer.index) +
                        " still has batch-norm; fold it first (load_darknet_model does)");
        }
    }
}

// The logistic's inverse, log(y / (1 - y)), with y kept off 0 and 1 (where float logistic saturates,
// |x| above ~16: the stored pre-activation saturates there too, with the same logistic output).
double logit(float y) {
    const double clamped = std::min(std::max(static_cast<double>(y), 1e-7), 1.0 - 1e-7);
    return std::log(clamped / (1.0 - clamped));
}

// The conv's value before its activation: darknet's leaky is 0.1f * x below zero (dividing by the same
// float recovers the accumulator's value), logistic is inverted by the logit.
double pre_activation(const Layer& layer, float v) {
    const Activation activation = layer.conv().activation;
    if (activation == Activation::Logistic) return logit(v);
    if (activation == Activation::Leaky && v < 0) return static_cast<double>(v) / static_cast<double>(0.1f);
    return v;
}

double max_abs_pre_activation(const Layer& layer, const std::vector<float>& output) {
    double max_abs = 0;
    for (float v : output) max_abs = std::max(max_abs, std::fabs(pre_activation(layer, v)));
    return max_abs;
}

// A logistic conv stores its pre-activation and, after the host's logistic step, the activation at one
// exponent: the statistics see both, so the exponent holds either.
void add_logistic_pre_activations(const Layer& layer, const std::vector<float>& output,
                                  ActivationHistogram& histogram) {
    std::vector<float> pre(output.size());
    for (std::size_t i = 0; i < output.size(); ++i)
        pre[i] = static_cast<float>(pre_activation(layer, output[i]));
    histogram.add(pre.data(), pre.size());
}

struct FloatStatistics {
    std::vector<ActivationHistogram> outputs;  // per layer
    std::vector<double> max_abs_accumulator;   // per layer, conv only
    int images = 0;
};

using ImageSource = std::function<Image(std::size_t index)>;

FloatStatistics gather_statistics(const Network& network, std::size_t image_count,
                                  const ImageSource& next_image,
                                  const std::function<std::string(std::size_t)>& image_name, bool progress) {
    FloatEngine engine(network);
    FloatStatistics stats;
    stats.outputs.resize(network.layers.size());
    stats.max_abs_accumulator.assign(network.layers.size(), 0.0);
    ProgressBar bar("calibrating", static_cast<int>(image_count), progress);
    for (std::size_t n = 0; n < image_count; ++n) {
        const Image boxed = next_image(n);
        engine.run(boxed.data.data());
        for (std::size_t i = 0; i < network.layers.size(); ++i) {
            const Layer& layer = network.layers[i];
            const std::vector<float>& output = engine.layer_output(static_cast<int>(i));
            // The region / yolo / softmax layer's output is activated in float on the host; only its input
            // matters.
            if (is_host_activated(layer.type)) continue;
            stats.outputs[i].add(output.data(), output.size());
            if (int16_detail::has_host_logistic(layer))
                add_logistic_pre_activations(layer, output, stats.outputs[i]);
            if (layer.type == LayerType::Convolutional) {
                stats.max_abs_accumulator[i] =
                    std::max(stats.max_abs_accumulator[i], max_abs_pre_activation(layer, output));
            }
        }
        ++stats.images;
        bar.step(image_name(n));
    }
    bar.finish(fmt::format("{} image(s)", image_count));
    return stats;
}

std::vector<std::string> route_notes(const Network& network, const std::vector<int>& preferred,
                                     const ActivationExponents& exponents) {
    std::vector<std::string> notes;
    for (const Layer& layer : network.layers) {
        if (layer.type != LayerType::Route || layer.route().inputs.size() < 2) continue;
        std::string inputs;
        std::string wanted;
        bool differ = false;
        for (int source : layer.route().inputs) {
            inputs += (inputs.empty() ? "" : ", ") + std::to_string(source);
            wanted += (wanted.empty() ? "" : ", ") + std::to_string(preferred[source]);
            differ = differ || preferred[source] != exponents.output_q[source];
        }
        if (!differ) continue;
        notes.push_back(
            fmt::format("route layer {}: inputs {} share exponent {} (their statistics ask for {})",
                        layer.index, inputs, exponents.output_q[layer.index], wanted));
    }
    return notes;
}

std::vector<int16_t> quantize_vector(const std::vector<float>& values, int q, int bits) {
    std::vector<int16_t> out(values.size());
    quantize_tensor(values.data(), values.size(), q, out.data(), bits);
    return out;
}

CalibrationResult choose_exponents(const Network& network, const FloatStatistics& stats,
                                   const CalibrationOptions& options) {
    const std::size_t layer_count = network.layers.size();
    const WidthPlan widths = plan_widths(network, options.widths);
    std::vector<int> preferred(layer_count, arith::kMaxExponent);
    for (std::size_t i = 0; i < layer_count; ++i) {
        if (is_host_activated(network.layers[i].type)) continue;
        // The input of an output the host activates ([region], [yolo], [softmax]): its largest values are
        // the confident boxes' or classes' logits, which squared error weighs no more than any other
        // value, so a narrow one keeps the maximum unsaturated.
        const bool feeds_head = i + 1 < layer_count && is_host_activated(network.layers[i + 1].type);
        if (widths.output_bits[i] < arith::kDataBits && !feeds_head) {
            // Narrow outputs have no bits to spare for a margin (each costs 6 dB of about 48): they take
            // the exponent of least squared error, saturation included, as narrow weights do
            // (docs/arithmetic.md, "Calibration at 8 bits").
            preferred[i] = stats.outputs[i].least_squares_exponent(widths.output_bits[i]);
            continue;
        }
        // The statistics give the exponent at which a value fits 16 bits; a narrow head's holds
        // `narrowing` bits fewer, with no margin bit (it would cost 6 dB everywhere for rare images).
        const int narrowing = arith::kDataBits - widths.output_bits[i];
        const int margin = narrowing > 0 ? 0 : options.activation_margin_bits;
        preferred[i] =
            std::max(arith::kMinExponent, stats.outputs[i].exponent(options.percentile) - margin - narrowing);
    }

    // Lowering an output exponent (to keep output_shift in range) changes the groups, so iterate until
    // no conv layer asks for more; each round only lowers caps, so this ends.
    std::vector<int> caps(layer_count, arith::kMaxExponent);
    std::vector<ConvExponents> conv(layer_count);
    ActivationExponents exponents;
    std::vector<std::string> cap_notes;
    for (std::size_t round = 0;; ++round) {
        if (round > 2 * layer_count + 2) {
            throw Error(network.cfg_path + ": calibration could not meet the output-shift limits");
        }
        std::vector<int> effective(layer_count);
        for (std::size_t i = 0; i < layer_count; ++i) effective[i] = std::min(preferred[i], caps[i]);
        exponents = unify_activation_exponents(network, effective, options.input_q);
        bool changed = false;
        for (std::size_t i = 0; i < layer_count; ++i) {
            const Layer& layer = network.layers[i];
            if (layer.type == LayerType::Shortcut) {
                // Qout <= max(Qa, Qb) + kShortcutMaxOutputGain (docs/arithmetic.md, "Shortcut").
                const int sum_q =
                    std::max(exponents.output_q[i - 1],
                             exponents.output_q[static_cast<std::size_t>(layer.shortcut().from)]);
                if (exponents.output_q[i] > sum_q + kShortcutMaxOutputGain) {
                    caps[i] = sum_q + kShortcutMaxOutputGain;
                    changed = true;
                }
            }
            if (layer.type != LayerType::Convolutional) continue;
            conv[i] = choose_conv_exponents(layer, exponents.input_of[i], exponents.output_q[i],
                                            stats.max_abs_accumulator[i], options.accumulator_margin_bits,
                                            widths.weight_bits[i]);
            if (conv[i].needs_lower_output && conv[i].max_output_q < caps[i]) {
                caps[i] = conv[i].max_output_q;
                cap_notes.push_back(
                    fmt::format("layer {} (conv): output exponent capped at {} so that "
                                "output_shift >= {}",
                                i, caps[i], arith::kModelMinOutputShift));
                changed = true;
            }
        }
        if (!changed) break;
    }

    CalibrationResult result;
    result.images = stats.images;
    result.options = options;
    result.notes = widths.notes;
    const std::vector<std::string> routes = route_notes(network, preferred, exponents);
    result.notes.insert(result.notes.end(), routes.begin(), routes.end());
    result.notes.insert(result.notes.end(), cap_notes.begin(), cap_notes.end());
    QuantizedNetwork& quantized = result.quantized;
    quantized.network = network;
    quantized.input_q = exponents.input_q;
    quantized.layers.resize(layer_count);
    result.layers.resize(layer_count);
    for (std::size_t i = 0; i < layer_count; ++i) {
        const Layer& layer = network.layers[i];
        QuantizedLayer& q = quantized.layers[i];
        LayerCalibration& report = result.layers[i];
        q.input_q = exponents.input_of[i];
        q.output_q = exponents.output_q[i];
        q.output_bits = widths.output_bits[i];
        report.max_abs_output = stats.outputs[i].max_abs();
        report.preferred_output_q = preferred[i];
        if (layer.type != LayerType::Convolutional) continue;
        const ConvParams& params = layer.conv();
        q.weight_q = conv[i].weight_q;
        q.bias_q = conv[i].bias_q;
        q.weight_bits = widths.weight_bits[i];
        q.weights = quantize_vector(params.weights, q.weight_q, q.weight_bits);
        q.biases = quantize_vector(params.biases, q.bias_q, arith::kDataBits);  // biases stay 16-bit
        report.max_abs_accumulator = stats.max_abs_accumulator[i];
        report.accumulator_bits = conv[i].accumulator_bits;
        report.weight_rms_error =
            params.weights.empty() ? 0.0 : std::sqrt(conv[i].weight_squared_error / params.weights.size());
        report.weight_q_lowered = conv[i].best_weight_q - conv[i].weight_q;
        result.notes.insert(result.notes.end(), conv[i].notes.begin(), conv[i].notes.end());
    }
    for (const std::string& note : result.notes) spdlog::debug("calibration: {}", note);
    // What calibration chose must obey the contract like a loaded file (a bug here would otherwise
    // run on a device with wrong results).
    validate_quantized_network(result.quantized, network.cfg_path + " (calibration result)",
                               WidthScope::CpuStudy);
    return result;
}

void require_options(const CalibrationOptions& options) {
    if (!(options.percentile > 0 && options.percentile <= 100)) {
        throw Error(fmt::format("percentile {} is outside (0, 100]", options.percentile));
    }
    if (options.activation_margin_bits < 0 || options.activation_margin_bits > 8) {
        throw Error(
            fmt::format("activation margin {} bits is outside [0, 8]", options.activation_margin_bits));
    }
    if (options.input_q < arith::kMinExponent || options.input_q > arith::kMaxExponent) {
        throw Error(fmt::format("input exponent {} is outside the contract's range [{}, {}]", options.input_q,
                                arith::kMinExponent, arith::kMaxExponent));
    }
}

FloatStatistics file_statistics(const Network& network, const std::vector<std::string>& image_paths,
                                const CalibrationOptions& options) {
    require_options(options);
    require_calibratable(network);
    if (image_paths.empty()) throw Error("calibration needs at least one image");
    const TensorShape& in = network.input;
    if (in.c != 3) {
        throw Error(fmt::format("{}: calibration on image files needs a 3-channel input (the cfg has {})",
                                network.cfg_path, in.c));
    }
    return gather_statistics(
        network, image_paths.size(),
        [&](std::size_t n) { return letterbox_image(load_image(image_paths[n]), in.w, in.h); },
        [&](std::size_t n) { return std::filesystem::path(image_paths[n]).filename().string(); },
        options.progress);
}

}  // namespace

struct Calibration::Impl {
    Network network;
    CalibrationOptions options;
    FloatStatistics stats;
};

Calibration::Calibration(const Network& network, const std::vector<std::string>& image_paths,
                         const CalibrationOptions& options)
    : impl_(std::make_unique<Impl>(Impl{network, options, file_statistics(network, image_paths, options)})) {}

Calibration::~Calibration() = default;

CalibrationResult Calibration::quantize(const std::vector<LayerWidths>& widths) const {
    CalibrationOptions options = impl_->options;
    options.widths = widths;
    return choose_exponents(impl_->network, impl_->stats, options);
}

CalibrationResult calibrate(const Network& network, const std::vector<std::string>& image_paths,
                            const CalibrationOptions& options) {
    return choose_exponents(network, file_statistics(network, image_paths, options), options);
}

CalibrationResult calibrate_letterboxed(const Network& network, const std::vector<Image>& letterboxed,
                                        const CalibrationOptions& options) {
    require_options(options);
    require_calibratable(network);
    if (letterboxed.empty()) throw Error("calibration needs at least one image");
    const TensorShape& in = network.input;
    for (const Image& image : letterboxed) {
        if (image.w != in.w || image.h != in.h || image.c != in.c ||
            image.data.size() != static_cast<std::size_t>(in.size())) {
            throw Error(fmt::format("calibration image of {}x{}x{} does not match the network input {}x{}x{}",
                                    image.c, image.h, image.w, in.c, in.h, in.w));
        }
    }
    const FloatStatistics stats = gather_statistics(
        network, letterboxed.size(), [&](std::size_t n) { return letterboxed[n]; },
        [](std::size_t n) { return "image " + std::to_string(n + 1); }, options.progress);
    return choose_exponents(network, stats, options);
}

}  // namespace fpgacnn

#include "width_explorer.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "fpgacnn/detector.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/plan.hpp"
#include "fpgacnn/progress_bar.hpp"
#include "fpgacnn/vision.hpp"

namespace fpgacnn::quantize {

namespace {

std::vector<int> conv_layers(const Network& network) {
    std::vector<int> layers;
    for (const Layer& layer : network.layers) {
        if (layer.type == LayerType::Convolutional) layers.push_back(layer.index);
    }
    return layers;
}

std::vector<LayerWidths> narrowed(const Network& network, const std::vector<WidthMove>& moves,
                                  int bits = arith::kNarrowBits) {
    std::vector<LayerWidths> widths = uniform_conv_widths(network, arith::kDataBits);
    for (const WidthMove& move : moves) {
        (move.weights ? widths[move.layer].weight_bits : widths[move.layer].output_bits) = bits;
    }
    return widths;
}

std::string move_text(const WidthMove& move) {
    return fmt::format("layer {} {}", move.layer, move.weights ? "weights" : "output");
}

std::size_t weight_bytes(const QuantizedNetwork& quantized) {
    std::size_t bytes = 0;
    for (const QuantizedLayer& layer : quantized.layers) {
        bytes += layer.weights.size() * static_cast<std::size_t>(layer.weight_bits / 8) +
                 layer.biases.size() * sizeof(int16_t);
    }
    return bytes;
}

/// Float detections not reproduced at `thresh` (one of the report's thresholds), in %.
double loss_percent(const AccuracyReport& report, float thresh) {
    for (const DetectionAgreement& a : report.agreement) {
        if (a.thresh != thresh) continue;
        return a.float_detections == 0 ? 0.0
                                       : 100.0 * (a.float_detections - a.reproduced) / a.float_detections;
    }
    throw Error(fmt::format("the accuracy report has no detections at thresh {:g}", thresh));
}

/// Everything one point needs, made once: the float reference, the image the timing runs on.
class Evaluator {
public:
    Evaluator(const Network& network, const std::vector<std::string>& images, const ExploreOptions& options)
        : network_(network), images_(images), options_(options) {
        BackendOptions reference;
        reference.device = "cpu";
        reference.precision = Precision::Float;
        reference_ = make_backend(network, reference);
        timing_input_ = letterbox_image(load_image(images.front()), network.input.w, network.input.h).data;
    }

    /// Accuracy and weight bytes of `calibration` (the study needs no time).
    void measure(const CalibrationResult& calibration, WidthPoint& point) {
        // The accuracy report compares every layer.
        const std::unique_ptr<Backend> backend = make_backend(network_, on_cpu(calibration, true));
        AccuracyOptions accuracy;
        accuracy.thresholds = {options_.thresh, other_threshold(options_.thresh)};
        point.accuracy = evaluate_quantization(network_, *reference_, *backend, images_, accuracy);
        point.loss_percent = loss_percent(point.accuracy, options_.thresh);
        point.other_loss_percent = loss_percent(point.accuracy, other_threshold(options_.thresh));
        point.region_sqnr_db = point.accuracy.layers.back().sqnr_db();
        point.lowest_sqnr_db = std::numeric_limits<double>::infinity();
        for (const LayerAccuracy& layer : point.accuracy.layers)
            point.lowest_sqnr_db = std::min(point.lowest_sqnr_db, layer.sqnr_db());
        point.weight_bytes = weight_bytes(calibration.quantized);
        cpu_name_ = backend->name();
    }

    /// The kernel's frame time as the planner predicts it for this build (emu's maxima, the
    /// planner's default clock and DDR bandwidth): 8-bit weights halve the parameter traffic, and a
    /// conv with 8-bit input and weights computes two columns per multiplier (the pair mode).
    double planner_ms(const CalibrationResult& calibration) const {
        PlanOptions options;
        options.maxima = kernel::native_build_maxima();
        plan_widths_of(calibration.quantized, options);
        return plan_network(network_, options).total.milliseconds;
    }

    void evaluate(const CalibrationResult& calibration, WidthPoint& point) {
        measure(calibration, point);
        point.planner_ms = planner_ms(calibration);
        // The time without layer outputs kept, as fpgacnn-detect runs.
        const std::unique_ptr<Backend> timed = make_backend(network_, on_cpu(calibration, false));
        timed->run(timing_input_.data());  // warm-up: packing, first-touch of the buffers
        std::vector<double> ms;
        for (int i = 0; i < options_.timing_runs; ++i) {
            const auto start = std::chrono::steady_clock::now();
            timed->run(timing_input_.data());
            ms.push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
        point.cpu_ms = ms[ms.size() / 2];
    }

    const std::string& cpu_name() const { return cpu_name_; }

private:
    // The CPU backend: the only one that also runs the study widths (arith::is_study_width).
    static BackendOptions on_cpu(const CalibrationResult& calibration, bool keep_layer_outputs) {
        BackendOptions options;
        options.device = "cpu";
        options.precision = Precision::Mixed;
        options.keep_layer_outputs = keep_layer_outputs;
        options.quantized =
            std::shared_ptr<const QuantizedNetwork>(std::shared_ptr<void>(), &calibration.quantized);
        return options;
    }

    const Network& network_;
    const std::vector<std::string>& images_;
    ExploreOptions options_;
    std::unique_ptr<Backend> reference_;
    std::vector<float> timing_input_;
    std::string cpu_name_;
};

bool dominates(const WidthPoint& a, const WidthPoint& b) {
    const bool no_worse = a.loss_percent <= b.loss_percent && a.weight_bytes <= b.weight_bytes &&
                          a.planner_ms <= b.planner_ms && a.cpu_ms <= b.cpu_ms;
    const bool better = a.loss_percent < b.loss_percent || a.weight_bytes < b.weight_bytes ||
                        a.planner_ms < b.planner_ms || a.cpu_ms < b.cpu_ms;
    return no_worse && better;
}

void mark_front(std::vector<WidthPoint>& points) {
    for (WidthPoint& p : points) {
        p.on_front =
            std::none_of(points.begin(), points.end(), [&p](const WidthPoint& q) { return dominates(q, p); });
    }
}

StudyRow study_row(const WidthMove& move, int bits, const WidthPoint& point) {
    StudyRow row;
    row.move = move;
    row.bits = bits;
    row.loss_percent = point.loss_percent;
    row.region_sqnr_db = point.region_sqnr_db;
    row.layer_sqnr_db = point.accuracy.layers[static_cast<std::size_t>(move.layer)].sqnr_db();
    return row;
}

// Each move alone at 8 bits (its point, 1 + i in `points`) and at every study width. The study widths
// run on the CPU backend only (arith::is_study_width), so these rows stay out of the search.
std::vector<StudyRow> study_moves(const Network& network, const Calibration& calibration,
                                  Evaluator& evaluator, const std::vector<WidthMove>& moves,
                                  const std::vector<WidthPoint>& points, ProgressBar& bar) {
    std::vector<StudyRow> rows;
    for (std::size_t i = 0; i < moves.size(); ++i) {
        rows.push_back(study_row(moves[i], arith::kNarrowBits, points[1 + i]));
        for (const int bits : arith::kStudyWidths) {
            WidthPoint point;
            evaluator.measure(calibration.quantize(narrowed(network, {moves[i]}, bits)), point);
            rows.push_back(study_row(moves[i], bits, point));
            bar.step(fmt::format("{} at {} bits", move_text(moves[i]), bits));
        }
    }
    return rows;
}

}  // namespace

float other_threshold(float thresh) { return thresh == 0.25f ? 0.5f : 0.25f; }

std::string move_tag(const WidthMove& move) {
    return fmt::format("{}{}", move.layer, move.weights ? "w" : "o");
}

WidthExploration explore_widths(const Network& network, const std::vector<std::string>& images,
                                const CalibrationOptions& calibration_options, const ExploreOptions& options,
                                CalibrationResult& chosen) {
    if (!(options.max_loss_percent >= 0 && options.max_loss_percent <= 100))
        throw Error(fmt::format("--max-loss {} is outside [0, 100]", options.max_loss_percent));
    if (!(options.thresh > 0 && options.thresh < 1))
        throw Error(fmt::format("--thresh {} is outside (0, 1)", options.thresh));
    const Calibration calibration(network, images, calibration_options);
    Evaluator evaluator(network, images, options);
    WidthExploration result;
    result.options = options;
    std::vector<WidthMove> moves;
    for (const int layer : conv_layers(network)) {
        moves.push_back({layer, true});
        moves.push_back({layer, false});
    }
    // int16, each move alone, the prefixes, and at most one constrained step per move; then each move
    // at every study width.
    const std::size_t study_steps = moves.size() * std::size(arith::kStudyWidths);
    ProgressBar bar("exploring widths", static_cast<int>(3 * moves.size() + study_steps), options.progress);

    auto add_point = [&](std::string label, std::vector<WidthMove> applied) {
        WidthPoint point;
        point.label = std::move(label);
        point.moves = std::move(applied);
        point.widths = narrowed(network, point.moves);
        evaluator.evaluate(calibration.quantize(point.widths), point);
        result.points.push_back(std::move(point));
        bar.step(result.points.back().label);
    };
    add_point("int16", {});
    for (const WidthMove& move : moves) add_point(move_text(move), {move});

    // Least sensitive first: fewest detections lost, then the highest region SQNR (point 1 + i is
    // move i alone).
    std::vector<std::size_t> order(moves.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const WidthPoint& pa = result.points[1 + a];
        const WidthPoint& pb = result.points[1 + b];
        if (pa.loss_percent != pb.loss_percent) return pa.loss_percent < pb.loss_percent;
        return pa.region_sqnr_db > pb.region_sqnr_db;
    });
    for (const std::size_t i : order) result.sensitivity_order.push_back(moves[i]);
    for (std::size_t k = 2; k <= moves.size(); ++k) {
        const std::vector<WidthMove> applied(
            result.sensitivity_order.begin(),
            result.sensitivity_order.begin() + static_cast<std::ptrdiff_t>(k));
        add_point(k == moves.size() ? "all int8" : fmt::format("{} least sensitive", k), applied);
    }
    // The same order, each move kept only while the loss stays within --max-loss: where the prefixes
    // stop at the first move that costs too much, this steps over it to the cheaper ones after.
    std::vector<WidthMove> kept;
    const std::size_t first_constrained = result.points.size();
    for (std::size_t k = 0; k < result.sensitivity_order.size(); ++k) {
        std::vector<WidthMove> candidate = kept;
        candidate.push_back(result.sensitivity_order[k]);
        const bool is_prefix = candidate.size() == k + 1;  // nothing skipped yet: a prefix point exists
        if (is_prefix && k == 0) {
            if (result.points[1 + order[0]].loss_percent <= options.max_loss_percent) kept = candidate;
            continue;
        }
        if (is_prefix) {
            if (result.points[first_constrained - moves.size() + k].loss_percent <= options.max_loss_percent)
                kept = candidate;
            continue;
        }
        add_point(fmt::format("within {:g} %: +{}", options.max_loss_percent, move_text(candidate.back())),
                  candidate);
        if (result.points.back().loss_percent <= options.max_loss_percent) kept = candidate;
    }
    result.study = study_moves(network, calibration, evaluator, moves, result.points, bar);
    bar.finish(fmt::format("{} width choices, {} study rows", result.points.size(), result.study.size()));
    mark_front(result.points);
    result.cpu = evaluator.cpu_name();
    const PlanOptions planned;
    const kernel::Maxima build = kernel::native_build_maxima();
    result.planner_build = fmt::format("Tm {} Tn {} Tr {} Tc {} at {:g} MHz, {:g} GB/s", build.tm, build.tn,
                                       build.tr, build.tc, planned.clock_mhz, planned.bandwidth_gbs);

    // The fewest weight bytes within the loss, then the fastest on the FPGA, then the smallest loss;
    // none within it: int16. All three are computed, not measured, so the same inputs choose the same
    // point on every run (the measured CPU time only breaks what they leave tied).
    const auto better = [](const WidthPoint& a, const WidthPoint& b) {
        if (a.weight_bytes != b.weight_bytes) return a.weight_bytes < b.weight_bytes;
        if (a.planner_ms != b.planner_ms) return a.planner_ms < b.planner_ms;
        if (a.loss_percent != b.loss_percent) return a.loss_percent < b.loss_percent;
        return a.cpu_ms < b.cpu_ms;
    };
    result.chosen = 0;
    result.chosen_within_loss = false;
    for (std::size_t i = 0; i < result.points.size(); ++i) {
        const WidthPoint& p = result.points[i];
        if (p.loss_percent > options.max_loss_percent) continue;
        if (!result.chosen_within_loss || better(p, result.points[result.chosen])) {
            result.chosen = i;
            result.chosen_within_loss = true;
        }
    }
    chosen = calibration.quantize(result.points[result.chosen].widths);
    return result;
}

}  // namespace fpgacnn::quantize

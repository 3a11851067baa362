#include "report_writers.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn::quantize {

namespace {

std::string shape_text(const TensorShape& s) { return fmt::format("{}x{}x{}", s.c, s.h, s.w); }

std::string sqnr_text(double db) { return std::isinf(db) ? "exact" : fmt::format("{:.1f}", db); }

nlohmann::json finite_or_null(double value) {
    if (!std::isfinite(value)) return nullptr;
    return value;
}

std::string layer_row(const QuantizeOutcome& o, std::size_t i) {
    const Layer& layer = o.calibration.quantized.network.layers[i];
    const QuantizedLayer& q = o.calibration.quantized.layers[i];
    const LayerCalibration& c = o.calibration.layers[i];
    const std::string bits = layer.type == LayerType::Convolutional
                                 ? fmt::format("{}/{}", q.weight_bits, q.output_bits)
                                 : fmt::format("-/{}", q.output_bits);
    std::string row = fmt::format("{:>5}  {:<13} {:<12} {:>5} {:>4} {:>4}", i, layer_type_name(layer.type),
                                  shape_text(layer.output), bits, q.input_q, q.output_q);
    if (layer.type == LayerType::Convolutional) {
        row += fmt::format(" {:>4} {:>4} {:>6} {:>11.4g} {:>8.1f} {:>8.1f}", q.weight_q, q.bias_q,
                           q.weight_q + q.input_q - q.output_q, c.max_abs_output, c.accumulator_bits,
                           31.0 - c.accumulator_bits);
    } else if (layer.type == LayerType::Region || layer.type == LayerType::Yolo ||
               layer.type == LayerType::Softmax) {  // activated in float
        row += fmt::format(" {:>4} {:>4} {:>6} {:>11} {:>8} {:>8}", "-", "-", "-", "-", "-", "-");
    } else {
        row += fmt::format(" {:>4} {:>4} {:>6} {:>11.4g} {:>8} {:>8}", "-", "-", "-", c.max_abs_output, "-",
                           "-");
    }
    if (o.accuracy) row += fmt::format(" {:>8}", sqnr_text(o.accuracy->layers[i].sqnr_db()));
    return row + "\n";
}

std::string moves_text(const std::vector<WidthMove>& moves) {
    if (moves.empty()) return "-";
    std::string text;
    for (const WidthMove& move : moves) text += (text.empty() ? "" : " ") + move_tag(move);
    return text;
}

// The study rows come per move, one per width (8, then the study widths): one table row per move.
std::string study_text(const WidthExploration& e) {
    const std::size_t widths = kStudyRowsPerMove;
    if (e.study.empty()) return "";
    std::string bits_header;
    for (std::size_t k = 0; k < widths; ++k) bits_header += fmt::format(" {:>6}", e.study[k].bits);
    std::string text = fmt::format(
        "\nsensitivity study: each move alone at {}, {} and {} bits ({} and {} simulated in the {}-bit "
        "storage, on the CPU backend only; the search above stays over {} and {} bits, the widths the "
        "kernel runs)\n",
        arith::kNarrowBits, arith::kStudyWidths[0], arith::kStudyWidths[1], arith::kStudyWidths[0],
        arith::kStudyWidths[1], arith::kNarrowBits, arith::kDataBits, arith::kNarrowBits);
    const int group = static_cast<int>(7 * widths);
    text += fmt::format("{:<5} {:>{}}  {:>{}}  {:>{}}\n", "", "loss %", group, "region dB", group, "layer dB",
                        group);
    text += fmt::format("{:<5} {}  {}  {}\n", "move", bits_header, bits_header, bits_header);
    for (std::size_t first = 0; first + widths <= e.study.size(); first += widths) {
        std::string loss, region, layer;
        for (std::size_t k = first; k < first + widths; ++k) {
            loss += fmt::format(" {:>6.1f}", e.study[k].loss_percent);
            region += fmt::format(" {:>6}", sqnr_text(e.study[k].region_sqnr_db));
            layer += fmt::format(" {:>6}", sqnr_text(e.study[k].layer_sqnr_db));
        }
        text += fmt::format("{:<5} {}  {}  {}\n", move_tag(e.study[first].move), loss, region, layer);
    }
    return text;
}

nlohmann::json study_json(const WidthExploration& e) {
    nlohmann::json rows = nlohmann::json::array();
    for (const StudyRow& row : e.study) {
        rows.push_back({{"move", move_tag(row.move)},
                        {"layer", row.move.layer},
                        {"tensor", row.move.weights ? "weights" : "output"},
                        {"bits", row.bits},
                        {"simulated", arith::is_study_width(row.bits)},
                        {"loss_percent", row.loss_percent},
                        {"region_sqnr_db", finite_or_null(row.region_sqnr_db)},
                        {"layer_sqnr_db", finite_or_null(row.layer_sqnr_db)}});
    }
    return rows;
}

std::string exploration_text(const WidthExploration& e) {
    std::string text = fmt::format(
        "\nwidth exploration: {} choices, greedy in sensitivity order (least sensitive first: {}; w: a conv "
        "layer's weights at 8 bits, o: its output); CPU time on {}, median of {} runs; FPGA time: the "
        "planner's prediction for the kernel build {}\n",
        e.points.size(), moves_text(e.sensitivity_order), e.cpu, e.options.timing_runs, e.planner_build);
    std::size_t label_width = 5;
    std::size_t moves_width = 5;
    for (const WidthPoint& p : e.points) {
        label_width = std::max(label_width, p.label.size());
        moves_width = std::max(moves_width, moves_text(p.moves).size());
    }
    // The loss is scored at the threshold the model runs at; the other one is shown, not scored.
    const float other = other_threshold(e.options.thresh);
    text += fmt::format("{:<{}} {:<{}} {:>11} {:>11} {:>10} {:>10} {:>10} {:>8} {:>8}  {}\n", "point",
                        label_width, "8-bit", moves_width, fmt::format("loss@{:g} %", e.options.thresh),
                        fmt::format("(@{:g} %)", other), "region dB", "lowest dB", "weight KiB", "FPGA ms",
                        "CPU ms", "front");
    for (std::size_t i = 0; i < e.points.size(); ++i) {
        const WidthPoint& p = e.points[i];
        text +=
            fmt::format("{:<{}} {:<{}} {:>11.1f} {:>11} {:>10} {:>10} {:>10.1f} {:>8.2f} {:>8.2f}  {}{}\n",
                        p.label, label_width, moves_text(p.moves), moves_width, p.loss_percent,
                        fmt::format("({:.1f})", p.other_loss_percent), sqnr_text(p.region_sqnr_db),
                        sqnr_text(p.lowest_sqnr_db), p.weight_bytes / 1024.0, p.planner_ms, p.cpu_ms,
                        p.on_front ? "yes" : "", i == e.chosen ? "  <- chosen" : "");
    }
    const WidthPoint& chosen = e.points[e.chosen];
    text += e.chosen_within_loss
                ? fmt::format("chosen (fewest weight bytes within --max-loss {:g} % at thresh {:g}): {}\n",
                              e.options.max_loss_percent, e.options.thresh, chosen.label)
                : fmt::format("no width choice keeps the loss within --max-loss {:g} %: int16 is written\n",
                              e.options.max_loss_percent);
    return text + study_text(e);
}

nlohmann::json exploration_json(const WidthExploration& e) {
    nlohmann::json points = nlohmann::json::array();
    for (const WidthPoint& p : e.points) {
        points.push_back({{"label", p.label},
                          {"narrowed", moves_text(p.moves)},
                          {"loss_percent", p.loss_percent},
                          {"other_thresh_loss_percent", p.other_loss_percent},
                          {"region_sqnr_db", finite_or_null(p.region_sqnr_db)},
                          {"lowest_sqnr_db", finite_or_null(p.lowest_sqnr_db)},
                          {"weight_bytes", p.weight_bytes},
                          {"planner_ms", p.planner_ms},
                          {"cpu_ms", p.cpu_ms},
                          {"on_front", p.on_front}});
    }
    return {{"points", points},
            {"sensitivity_order", moves_text(e.sensitivity_order)},
            {"chosen", e.chosen},
            {"chosen_within_loss", e.chosen_within_loss},
            {"max_loss_percent", e.options.max_loss_percent},
            {"thresh", e.options.thresh},
            {"other_thresh", other_threshold(e.options.thresh)},
            {"cpu", e.cpu},
            {"planner_build", e.planner_build},
            // 6 and 4 bits run on the CPU backend only, so the study is not part of the search.
            {"study", study_json(e)}};
}

std::string equalization_text(const std::vector<EqualizedPair>& pairs) {
    std::string text;
    for (const EqualizedPair& pair : pairs) {
        text += fmt::format(
            "equalized conv {} -> conv {}: largest / smallest filter range of conv {} {:.1f} -> {:.1f}\n",
            pair.first, pair.second, pair.first, pair.first_ratio_before, pair.first_ratio_after);
    }
    return text;
}

nlohmann::json equalization_json(const std::vector<EqualizedPair>& pairs) {
    nlohmann::json entries = nlohmann::json::array();
    for (const EqualizedPair& pair : pairs) {
        entries.push_back({{"first", pair.first},
                           {"second", pair.second},
                           {"first_ratio_before", pair.first_ratio_before},
                           {"first_ratio_after", pair.first_ratio_after}});
    }
    return entries;
}

}  // namespace

std::string outcome_to_text(const QuantizeOutcome& o) {
    const QuantizedNetwork& q = o.calibration.quantized;
    const CalibrationOptions& options = o.calibration.options;
    std::string text = fmt::format(
        "{}: {} layers ({}), input {} at exponent {}, calibrated on {} image(s): "
        "percentile {:g}, activation margin {} bit(s), accumulator margin {:g} bit(s)\n",
        o.out_path, q.layers.size(), width_summary(q), shape_text(q.network.input), q.input_q,
        o.calibration.images, options.percentile, options.activation_margin_bits,
        options.accumulator_margin_bits);
    text += equalization_text(o.equalized);
    if (!o.accuracy) {
        for (const std::string& note : o.calibration.notes) text += "note: " + note + "\n";
        return text;
    }
    text +=
        fmt::format("\n{:>5}  {:<13} {:<12} {:>5} {:>4} {:>4} {:>4} {:>4} {:>6} {:>11} {:>8} {:>8} {:>8}\n",
                    "layer", "type", "output", "bits", "Qin", "Qout", "Qw", "Qb", "oshift", "max|float|",
                    "acc bits", "headroom", "SQNR dB");
    for (std::size_t i = 0; i < q.layers.size(); ++i) text += layer_row(o, i);
    text += "\n";
    for (const std::string& note : o.calibration.notes) text += "note: " + note + "\n";
    for (const DetectionAgreement& a : o.accuracy->agreement) {
        text += fmt::format(
            "detections at thresh {:g}: fixed point reproduces {} of {} float detections ({:.1f} %); "
            "fixed point finds {}\n",
            a.thresh, a.reproduced, a.float_detections, 100.0 * a.ratio(), a.int16_detections);
    }
    if (o.exploration) text += exploration_text(*o.exploration);
    return text;
}

nlohmann::json outcome_to_json(const QuantizeOutcome& o) {
    const QuantizedNetwork& q = o.calibration.quantized;
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t i = 0; i < q.layers.size(); ++i) {
        const Layer& layer = q.network.layers[i];
        const QuantizedLayer& ql = q.layers[i];
        const LayerCalibration& c = o.calibration.layers[i];
        nlohmann::json entry = {
            {"index", i},
            {"type", layer_type_name(layer.type)},
            {"output", {layer.output.c, layer.output.h, layer.output.w}},
            {"input_q", ql.input_q},
            {"output_q", ql.output_q},
            {"output_bits", ql.output_bits},
            {"max_abs_output", layer.type == LayerType::Region || layer.type == LayerType::Yolo ||
                                       layer.type == LayerType::Softmax
                                   ? nlohmann::json(nullptr)
                                   : nlohmann::json(c.max_abs_output)},
            {"preferred_output_q", c.preferred_output_q}};
        if (layer.type == LayerType::Convolutional) {
            entry["weight_q"] = ql.weight_q;
            entry["weight_bits"] = ql.weight_bits;
            entry["bias_q"] = ql.bias_q;
            entry["bias_shift"] = ql.weight_q + ql.input_q - ql.bias_q;
            entry["output_shift"] = ql.weight_q + ql.input_q - ql.output_q;
            entry["weight_q_lowered"] = c.weight_q_lowered;
            entry["weight_rms_error"] = c.weight_rms_error;
            entry["accumulator_bits"] = finite_or_null(c.accumulator_bits);
            entry["headroom_bits"] = finite_or_null(31.0 - c.accumulator_bits);
        }
        if (o.accuracy) {
            entry["sqnr_db"] = finite_or_null(o.accuracy->layers[i].sqnr_db());
            entry["max_abs_error"] = o.accuracy->layers[i].max_abs_error;
        }
        layers.push_back(entry);
    }
    nlohmann::json result = {{"out", o.out_path},
                             {"cfg", q.network.cfg_path},
                             {"weights", q.network.weights_path},
                             {"input", {q.network.input.c, q.network.input.h, q.network.input.w}},
                             {"input_q", q.input_q},
                             {"widths", width_summary(q)},
                             {"percentile", o.calibration.options.percentile},
                             {"activation_margin_bits", o.calibration.options.activation_margin_bits},
                             {"accumulator_margin_bits", o.calibration.options.accumulator_margin_bits},
                             {"images", o.images},
                             {"notes", o.calibration.notes},
                             {"equalized", equalization_json(o.equalized)},
                             {"layers", layers}};
    if (o.accuracy) {
        nlohmann::json agreement = nlohmann::json::array();
        for (const DetectionAgreement& a : o.accuracy->agreement) {
            agreement.push_back({{"thresh", a.thresh},
                                 {"float_detections", a.float_detections},
                                 {"int16_detections", a.int16_detections},
                                 {"reproduced", a.reproduced},
                                 {"ratio", a.ratio()}});
        }
        result["detections"] = agreement;
    }
    if (o.exploration) result["exploration"] = exploration_json(*o.exploration);
    return result;
}

}  // namespace fpgacnn::quantize

#include "bench_report.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace fpgacnn::bench {
namespace {

double round_to(double value, int digits) {
    const double scale = std::pow(10.0, digits);
    return std::round(value * scale) / scale;
}

std::string shape_text(const TensorShape& s) { return fmt::format("{}x{}x{}", s.c, s.h, s.w); }

nlohmann::json percentiles_json(const Percentiles& p) {
    return {{"mean", round_to(p.mean, 3)},
            {"p50", round_to(p.p50, 3)},
            {"p90", round_to(p.p90, 3)},
            {"p99", round_to(p.p99, 3)}};
}

nlohmann::json mode_json(const ModeResult& m) {
    return {{"frames", m.frames},
            {"seconds", round_to(m.seconds, 4)},
            {"fps", round_to(m.fps, 3)},
            {"gops", round_to(m.gops, 3)},
            {"latency_ms", percentiles_json(m.latency)},
            {"stage_ms",
             {{"pre", round_to(m.pre_ms, 3)},
              {"device", round_to(m.device_ms, 3)},
              {"post", round_to(m.post_ms, 3)}}},
            {"cpu_ms_per_frame", round_to(m.cpu_ms_per_frame, 3)}};
}

std::string mode_line(const char* name, const ModeResult& m) {
    return fmt::format(
        "{:<13}{:8.2f} FPS {:8.2f} GOP/s   latency ms p50 {:.1f}  p90 {:.1f}  p99 {:.1f}   "
        "stages ms pre {:.2f}  device {:.2f}  post {:.2f}   cpu ms/frame {:.2f}\n",
        name, m.fps, m.gops, m.latency.p50, m.latency.p90, m.latency.p99, m.pre_ms, m.device_ms, m.post_ms,
        m.cpu_ms_per_frame);
}

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }
nlohmann::json verification_json(const VerificationStats& v) {
    return {{"every", v.every},
            {"frames_verified", v.frames_verified},
            {"mismatches", v.mismatches},
            {"fell_back", v.fell_back},
            {"first_mismatch", v.first_mismatch ? nlohmann::json(v.first_mismatch->text()) : nullptr}};
}

std::string verification_line(const VerificationStats& v) {
    if (v.every == 0) return "golden twin  off (--verify-every N to check device results on the CPU)\n";
    std::string line = fmt::format("golden twin  one frame in {}: {} verified, {} mismatch(es)", v.every,
                                   v.frames_verified, v.mismatches);
    if (v.fell_back) line += ", fell back to the CPU";
    if (v.first_mismatch) line += "; first: " + v.first_mismatch->text();
    return line + "\n";
}

}  // namespace

std::string power_summary(const BenchResult& r) {
    if (!r.power.available) return "not available: " + r.power.reason;
    return fmt::format(
        "{:.2f} W average, {:.2f} W peak, {:.3f} J/frame, {:.2f} GOP/s/W ({}; {} samples over {:.1f} s)",
        r.power.average_watts, r.power.peak_watts, r.joules_per_frame, r.gops_per_watt, r.power.source,
        r.power.samples, r.power.seconds);
}

std::string memory_summary(const BenchResult& r) {
    const std::uint64_t above =
        r.peak_rss_bytes > r.startup_rss_bytes ? r.peak_rss_bytes - r.startup_rss_bytes : 0;
    return fmt::format(
        "peak RSS {:.1f} MiB, {:.1f} MiB above the start-up footprint of {:.1f} MiB (ru_maxrss)",
        mib(r.peak_rss_bytes), mib(above), mib(r.startup_rss_bytes));
}

std::string result_to_text(const BenchResult& r) {
    std::string text;
    text += fmt::format("model        {} ({}), input {}x{}, {:.3f} GOP/frame\n", r.cfg, r.weights, r.input_w,
                        r.input_h, r.gop_per_frame);
    text += fmt::format("device       {} [{}], precision {}, {} device worker(s), {} frames in flight\n",
                        r.device_name, r.device_spec, precision_name(r.precision), r.device_workers,
                        r.max_in_flight);
    text += fmt::format("frames       {} per mode after {} warm-up, from {}\n", r.single.frames, r.warmup,
                        r.frames_source);
    text += mode_line("single-frame", r.single);
    text += mode_line("pipelined", r.pipelined);
    text += "power        " + power_summary(r) + "\n";
    text += "memory       " + memory_summary(r) + "\n";
    text += verification_line(r.verification) + "\n";
    // Devices that count cycles (the rtl simulation) get two more columns: measured and predicted.
    const bool counted =
        std::any_of(r.layers.begin(), r.layers.end(), [](const LayerRow& row) { return row.cycles; });
    text += fmt::format("{:>3}  {:<13} {:<12} {:>8} {:>9} {:>9} {:>9} {:>10} {:>6}", "#", "layer", "output",
                        "MMACs", "ms", "planner", "GOP/s", "bytes", "%");
    text += counted ? fmt::format(" {:>11} {:>11} {:>7}\n", "cycles", "predicted", "pred/%") : "\n";
    for (const LayerRow& row : r.layers) {
        text += fmt::format("{:>3}  {:<13} {:<12} {:>8.1f} {:>9.3f} {:>9} {:>9.2f} {:>10} {:>5.1f}%",
                            row.index, row.type, shape_text(row.output), static_cast<double>(row.macs) / 1e6,
                            row.ms, row.planner_ms ? fmt::format("{:.3f}", *row.planner_ms) : "-", row.gops(),
                            row.bytes, row.percent);
        if (!counted) {
            text += "\n";
            continue;
        }
        const bool both = row.cycles && row.predicted_cycles && *row.cycles > 0;
        text += fmt::format(
            " {:>11} {:>11} {:>7}\n", row.cycles ? std::to_string(*row.cycles) : "-",
            row.predicted_cycles ? fmt::format("{:.0f}", *row.predicted_cycles) : "-",
            both ? fmt::format("{:+.1f}",
                               100.0 * (*row.predicted_cycles / static_cast<double>(*row.cycles) - 1.0))
                 : "-");
    }
    text += fmt::format("layer times: {}; bytes: {}; planner: the kernel's latency model at its clock\n",
                        r.timing_basis, r.bytes_basis);
    if (counted) {
        text +=
            "cycles: counted by the device from ap_start to ap_done; predicted: the planner's model; pred/%: "
            "how far the prediction is off\n";
    }
    return text;
}

nlohmann::json result_to_json(const BenchResult& r) {
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerRow& row : r.layers) {
        layers.push_back(
            {{"index", row.index},
             {"type", row.type},
             {"output", {row.output.c, row.output.h, row.output.w}},
             {"macs", row.macs},
             {"ms", round_to(row.ms, 4)},
             {"planner_ms", row.planner_ms ? nlohmann::json(round_to(*row.planner_ms, 4)) : nullptr},
             {"cycles", row.cycles ? nlohmann::json(*row.cycles) : nullptr},
             {"predicted_cycles",
              row.predicted_cycles ? nlohmann::json(round_to(*row.predicted_cycles, 0)) : nullptr},
             {"gops", round_to(row.gops(), 3)},
             {"bytes", row.bytes},
             {"ops_per_byte", round_to(row.ops_per_byte(), 3)},
             {"percent", round_to(row.percent, 2)},
             {"on_device", row.on_device}});
    }
    nlohmann::json power = {{"available", r.power.available}};
    if (r.power.available) {
        power.update({{"source", r.power.source},
                      {"average_watts", round_to(r.power.average_watts, 3)},
                      {"peak_watts", round_to(r.power.peak_watts, 3)},
                      {"joules", round_to(r.power.joules, 4)},
                      {"joules_per_frame", round_to(r.joules_per_frame, 5)},
                      {"gops_per_watt", round_to(r.gops_per_watt, 3)},
                      {"seconds", round_to(r.power.seconds, 3)},
                      {"samples", r.power.samples}});
    } else {
        power["reason"] = r.power.reason;
    }
    return {{"tool", "fpgacnn-bench"},
            {"cfg", r.cfg},
            {"weights", r.weights},
            {"device", r.device_spec},
            {"device_name", r.device_name},
            {"precision", precision_name(r.precision)},
            {"input", {{"w", r.input_w}, {"h", r.input_h}}},
            {"frames_source", r.frames_source},
            {"warmup", r.warmup},
            {"max_in_flight", r.max_in_flight},
            {"device_workers", r.device_workers},
            {"gop_per_frame", round_to(r.gop_per_frame, 4)},
            {"single_frame", mode_json(r.single)},
            {"pipelined", mode_json(r.pipelined)},
            {"layers", layers},
            {"layer_timing", r.timing_basis},
            {"layer_bytes", r.bytes_basis},
            {"roofline",
             {{"peak_gops", round_to(r.roofs.peak_gops, 2)},
              {"bandwidth_gbs", round_to(r.roofs.bandwidth_gbs, 2)},
              {"basis", r.roofs.basis}}},
            {"power", power},
            {"memory", {{"startup_rss_bytes", r.startup_rss_bytes}, {"peak_rss_bytes", r.peak_rss_bytes}}},
            {"golden_twin", verification_json(r.verification)}};
}

std::string layers_to_csv(const BenchResult& r) {
    std::string csv =
        "index,type,output_c,output_h,output_w,macs,ms,planner_ms,gops,bytes,ops_per_byte,percent,on_"
        "device,cycles,predicted_cycles\n";
    for (const LayerRow& row : r.layers) {
        csv += fmt::format("{},{},{},{},{},{},{:.4f},{},{:.3f},{},{:.3f},{:.2f},{},{},{}\n", row.index,
                           row.type, row.output.c, row.output.h, row.output.w, row.macs, row.ms,
                           row.planner_ms ? fmt::format("{:.4f}", *row.planner_ms) : "", row.gops(),
                           row.bytes, row.ops_per_byte(), row.percent, row.on_device ? 1 : 0,
                           row.cycles ? std::to_string(*row.cycles) : "",
                           row.predicted_cycles ? fmt::format("{:.0f}", *row.predicted_cycles) : "");
    }
    return csv;
}

}  // namespace fpgacnn::bench

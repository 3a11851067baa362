// The explorer's reports (explore_report.hpp).
#include "explore_report.hpp"

#include <fmt/format.h>

#include "fpgacnn/kernel/contract.hpp"

namespace fpgacnn::explore {

namespace {

std::string maxima_text(const kernel::Maxima& m) {
    return fmt::format("Tm={} Tn={} Tr={} Tc={}", m.tm, m.tn, m.tr, m.tc);
}

/// Whether a build of this kernel at `r`'s data type has the pair mode of 8-bit layers and the board's
/// DSP takes its packed operand: the one place the report decides it (DesignShape::int8_pairs says
/// which designs have the mode).
bool has_pairs(const ExploreResult& r, const Build& b) {
    return this_kernel(b.maxima, r.options.type, r.options.port_bits).int8_pairs;
}

/// The compute roof of 8-bit layers (8-bit input and weights): twice the int16 one where one DSP does
/// two MACs through one packed product.
double int8_roof_gops(const ExploreResult& r, const Build& b) {
    const bool two_per_dsp = has_pairs(r, b) && dsp_takes_pairs(r.options.board.dsp_kind);
    return (two_per_dsp ? 2.0 : 1.0) * r.compute_roof_gops(b);
}

/// What the build's DSPs do for 8-bit layers; empty for float32 designs.
std::string pair_mode_text(const ExploreResult& r, const Build& b) {
    const Board& board = r.options.board;
    if (r.options.type == DataType::Int16 && !b.maxima.int8_pairs)
        return "8-bit layers: one MAC per DSP (a build without the pair mode, FPGACNN_INT8_PAIRS=0)\n\n";
    if (!has_pairs(r, b)) return "\n";
    if (!dsp_takes_pairs(board.dsp_kind)) {
        return fmt::format(
            "8-bit layers: one MAC per DSP (the {} operand of the pair mode does not fit a {})\n\n",
            arith::kPairOperandBits, board.dsp_kind);
    }
    return fmt::format(
        "8-bit layers: two MACs per DSP (pair mode: a {}-bit packed operand in the {}'s {}-bit pre-adder), "
        "compute roof {:.1f} GOP/s\n\n",
        arith::kPairOperandBits, board.dsp_kind, dsp_preadder_bits(board.dsp_kind), int8_roof_gops(r, b));
}

std::string percent(int used, int available) {
    return fmt::format("{:.0f}%", 100.0 * used / std::max(1, available));
}

nlohmann::json build_json(const ExploreResult& r, const Build& b) {
    return {{"tm", b.maxima.tm},
            {"tn", b.maxima.tn},
            {"tr", b.maxima.tr},
            {"tc", b.maxima.tc},
            {"max_kernel", b.maxima.max_kernel},
            {"max_stride", b.maxima.max_stride},
            {"dsp", b.resources.dsp},
            {"bram_18k", b.resources.bram_18k},
            {"lut", b.resources.lut},
            {"ff", b.resources.ff},
            {"milliseconds", b.milliseconds},
            {"conv_milliseconds", b.conv_milliseconds},
            {"compute_roof_ms", b.lower_bound_ms},
            {"gops", r.gops(b)},
            {"conv_gops", r.conv_gops(b)}};
}

}  // namespace

std::string format_explore_table(const ExploreResult& r) {
    const ExploreOptions& o = r.options;
    const Board& board = o.board;
    const Build& b = r.best;
    std::string out = fmt::format(
        "board {} ({}): {} {} x{}, {} BRAM_18K, {} URAM, {} LUT, {} FF, {:.1f} GB/s\n"
        "budget {:.0f}%: {} DSP, {} BRAM_18K, {} LUT, {} FF; {}, {:.0f} MHz, {} fm read / {} fm write "
        "port(s) of {} bits\n"
        "search: {} (Tm, Tn) pairs in the DSP / LUT / FF budget, {} on the compute-roof staircase, {} builds "
        "fit, "
        "{} layer estimates, {:.2f} s\n\n",
        board.name, fmt::join(board.boards, ", "), board.family, board.dsp_kind, board.dsp, board.bram_18k,
        board.uram, board.lut, board.ff, board.bandwidth_gbs, o.headroom * 100, r.dsp_budget, r.bram_budget,
        r.lut_budget, r.ff_budget, data_type_name(o.type), o.clock_mhz, o.fm_read_ports, o.fm_write_ports,
        o.port_bits, r.stats.pairs_enumerated, r.stats.pairs_kept, r.stats.builds_fitting,
        r.stats.layer_estimates, r.stats.seconds);
    out += fmt::format(
        "best: {} (max window {}, stride {}): {:.1f} ms/frame, {:.2f} GOP/s ({:.2f} GOP; compute roof {:.1f} "
        "ms, {:.1f} GOP/s peak)\n"
        "      DSP {} ({}), BRAM_18K {} ({}), LUT {} ({}), FF {} ({})\n{}",
        maxima_text(b.maxima), b.maxima.max_kernel, b.maxima.max_stride, b.milliseconds, r.gops(b), r.gop(),
        b.lower_bound_ms, r.compute_roof_gops(b), b.resources.dsp, percent(b.resources.dsp, board.dsp),
        b.resources.bram_18k, percent(b.resources.bram_18k, board.bram_18k), b.resources.lut,
        percent(b.resources.lut, board.lut), b.resources.ff, percent(b.resources.ff, board.ff),
        pair_mode_text(r, b));
    out += fmt::format("{:>5} {:>8} {:>8} {:>10} {:>9} {:>9} {:>8}  {}\n", "layer", "GOP", "ms", "MB moved",
                       "op/byte", "GOP/s", "busy", "bound");
    for (const LayerPoint& l : r.best_layers) {
        const bool compute = l.compute_ms >= 0.8 * l.milliseconds;
        out += fmt::format("{:>5} {:>8.3f} {:>8.2f} {:>10.2f} {:>9.1f} {:>9.2f} {:>7.0f}%  {}\n", l.index,
                           l.gop, l.milliseconds, l.megabytes, l.ctc, l.gops,
                           l.milliseconds > 0 ? 100.0 * l.compute_ms / l.milliseconds : 0.0,
                           compute ? "compute" : "memory");
    }
    out += fmt::format("\nPareto front (latency, DSP, BRAM_18K): {} builds\n", r.front.size());
    out += fmt::format("{:>4} {:>4} {:>4} {:>4} {:>6} {:>6} {:>7} {:>7} {:>9} {:>8}\n", "Tm", "Tn", "Tr",
                       "Tc", "DSP", "BRAM", "LUT", "FF", "ms", "GOP/s");
    const std::size_t shown = std::min<std::size_t>(r.front.size(), 15);
    for (std::size_t i = 0; i < shown; ++i) {
        const Build& f = r.front[i];
        out += fmt::format("{:>4} {:>4} {:>4} {:>4} {:>6} {:>6} {:>7} {:>7} {:>9.1f} {:>8.2f}\n", f.maxima.tm,
                           f.maxima.tn, f.maxima.tr, f.maxima.tc, f.resources.dsp, f.resources.bram_18k,
                           f.resources.lut, f.resources.ff, f.milliseconds, r.gops(f));
    }
    if (shown < r.front.size())
        out += fmt::format("  ... {} more (--json lists all)\n", r.front.size() - shown);
    return out;
}

nlohmann::json explore_to_json(const ExploreResult& r) {
    const ExploreOptions& o = r.options;
    nlohmann::json front = nlohmann::json::array();
    for (const Build& f : r.front) front.push_back(build_json(r, f));
    nlohmann::json layers = nlohmann::json::array();
    for (const LayerPoint& l : r.best_layers) {
        layers.push_back({{"index", l.index},
                          {"type", layer_type_name(l.type)},
                          {"gop", l.gop},
                          {"milliseconds", l.milliseconds},
                          {"compute_ms", l.compute_ms},
                          {"megabytes", l.megabytes},
                          {"ops_per_byte", l.ctc},
                          {"gops", l.gops}});
    }
    return {
        {"board",
         {{"name", o.board.name},
          {"boards", o.board.boards},
          {"part", o.board.part},
          {"dsp_kind", o.board.dsp_kind},
          {"dsp", o.board.dsp},
          {"bram_18k", o.board.bram_18k},
          {"uram", o.board.uram},
          {"lut", o.board.lut},
          {"ff", o.board.ff},
          {"bandwidth_gbs", o.board.bandwidth_gbs}}},
        {"int8_pairs",
         {{"in_design", has_pairs(r, r.best)},
          {"dsp_takes_pairs", dsp_takes_pairs(o.board.dsp_kind)},
          {"packed_operand_bits", arith::kPairOperandBits},
          {"dsp_preadder_bits", dsp_preadder_bits(o.board.dsp_kind)},
          {"compute_roof_gops", int8_roof_gops(r, r.best)}}},
        {"precision", data_type_name(o.type)},
        {"clock_mhz", o.clock_mhz},
        {"headroom", o.headroom},
        {"port_bits", o.port_bits},
        {"fm_read_ports", o.fm_read_ports},
        {"fm_write_ports", o.fm_write_ports},
        {"budget",
         {{"dsp", r.dsp_budget}, {"bram_18k", r.bram_budget}, {"lut", r.lut_budget}, {"ff", r.ff_budget}}},
        {"gop", r.gop()},
        {"search",
         {{"pairs_enumerated", r.stats.pairs_enumerated},
          {"pairs_kept", r.stats.pairs_kept},
          {"builds_fitting", r.stats.builds_fitting},
          {"layer_estimates", r.stats.layer_estimates},
          {"seconds", r.stats.seconds}}},
        {"best", build_json(r, r.best)},
        {"best_layers", layers},
        {"pareto_front", front},
        {"hls_config", hls_config(r)}};
}

std::string hls_config(const ExploreResult& r) {
    const ExploreOptions& o = r.options;
    const kernel::Maxima& m = r.best.maxima;
    std::string out = fmt::format(
        "# fpgacnn-plan --explore: {} for {} on {} ({}), {}, {:.0f} MHz: {:.1f} ms/frame predicted\n"
        "# Vivado HLS: set -a; . this-file; set +a; vivado_hls -f kernels/hls/vivado/build_ip.tcl\n"
        "# Vitis:      make -C kernels/hls/vitis xclbin TM={} TN={} TR={} TC={} MAX_K={} MAX_S={} "
        "INT8_PAIRS={} PORT_BITS={}\n",
        maxima_text(m), r.workload.name, o.board.name, o.board.part, data_type_name(o.type), o.clock_mhz,
        r.best.milliseconds, m.tm, m.tn, m.tr, m.tc, m.max_kernel, m.max_stride, m.int8_pairs ? 1 : 0,
        o.port_bits);
    // The kernel's word ports may be 16 to 128 bits wide (FPGACNN_PORT_BITS); more ports, or wider
    // float32 ones, are other designs.
    const bool kernel_ports = o.type == DataType::Int16 ? o.port_bits >= 16 && o.port_bits <= 128 &&
                                                              (o.port_bits & (o.port_bits - 1)) == 0
                                                        : o.port_bits == data_bits(o.type);
    if (!kernel_ports || o.fm_read_ports != 1 || o.fm_write_ports != 1) {
        out += fmt::format(
            "# NOTE: timed with {} read / {} write port(s) of {} bits; the kernel has one port each, "
            "16 to 128 bits wide\n",
            o.fm_read_ports, o.fm_write_ports, o.port_bits);
    }
    out += fmt::format(
        "FPGACNN_PART={}\nFPGACNN_CLOCK_MHZ={:.0f}\nFPGACNN_TM={}\nFPGACNN_TN={}\nFPGACNN_TR={}\nFPGACNN_TC={"
        "}\n"
        "FPGACNN_MAX_K={}\nFPGACNN_MAX_S={}\nFPGACNN_INT8_PAIRS={}\nFPGACNN_PORT_BITS={}\n",
        o.board.part, o.clock_mhz, m.tm, m.tn, m.tr, m.tc, m.max_kernel, m.max_stride, m.int8_pairs ? 1 : 0,
        o.port_bits);
    return out;
}

}  // namespace fpgacnn::explore

#include "plan_command.hpp"

#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "../common/flag_checks.hpp"
#include "../common/output_paths.hpp"
#include "../detect/result_writers.hpp"
#include "explore/explore_plot.hpp"
#include "explore/explore_report.hpp"
#include "explore/explorer.hpp"
#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/quantized_file.hpp"
#include "plan_json.hpp"

namespace fpgacnn::plan_app {
namespace {

PlanOutput run_explore(const PlanCommand& options, const fpgacnn::Network& network, const CLI::App& app) {
    namespace ex = fpgacnn::explore;
    const std::string dir = options.boards_dir.empty() ? ex::default_boards_dir() : options.boards_dir;
    if (options.board.empty()) {
        std::string known;
        for (const ex::Board& b : ex::load_catalogue(dir)) known += " " + b.name;
        throw fpgacnn::Error("--explore needs --board NAME; the catalogue " + dir + " has:" + known);
    }
    ex::ExploreOptions o;
    o.board = ex::find_board(dir, options.board);
    o.type = ex::parse_data_type(options.precision);
    o.clock_mhz = app.count("--clock-mhz") > 0 ? options.plan.clock_mhz : 0.0;
    o.headroom = options.headroom_percent / 100.0;
    o.port_bits = app.count("--port-bits") > 0 ? options.plan.port_bits : 0;
    o.fm_read_ports = options.plan.fm_read_ports;
    o.fm_write_ports = options.plan.fm_write_ports;
    o.burst_overhead_cycles = options.plan.burst_overhead_cycles;
    o.read_latency_cycles = options.plan.read_latency_cycles;
    o.outstanding_reads = options.plan.outstanding_reads;
    o.write_latency_cycles = options.plan.write_latency_cycles;
    o.int8_pairs = !options.no_int8_pairs;
    const ex::Workload workload =
        ex::workload_from_network(network, ex::parse_groups(options.groups), options.conv_only);
    const ex::ExploreResult result = ex::explore(workload, o);
    if (!options.plot.empty())
        fpgacnn::detect::write_image_file(options.plot, ex::draw_explore_plot(result), "the plot");
    if (!options.config_out.empty())
        fpgacnn::detect::write_text_file(options.config_out, ex::hls_config(result), "the build config");
    std::ostringstream text;
    text << options.cfg << " at " << network.input.w << "x" << network.input.h << "\n"
         << ex::format_explore_table(result) << "\n"
         << ex::hls_config(result);
    return {ex::explore_to_json(result), text.str()};
}

}  // namespace

PlanOutput run_plan_command(const PlanCommand& options, const CLI::App& app) {
    if (!options.plot.empty()) fpgacnn::apps::check_output_file(options.plot, "--plot");
    if (!options.config_out.empty()) fpgacnn::apps::check_output_file(options.config_out, "--config-out");
    std::optional<fpgacnn::InputSizeOverride> input_override;
    if (!options.input_size.empty()) input_override = fpgacnn::parse_input_size(options.input_size);
    const fpgacnn::Network network = fpgacnn::load_darknet_cfg_for_planning(options.cfg, input_override);
    if (options.explore && options.train)
        throw fpgacnn::Error(
            "--train times one kernel build: run --explore first, then --train with the build's --tm, --tn, "
            "--tr, --tc");
    if (options.explore) return run_explore(options, network, app);
    fpgacnn::PlanOptions plan_options = options.plan;
    plan_options.maxima.int8_pairs = !options.no_int8_pairs;
    plan_options.maxima.port_bits = plan_options.port_bits;
    if (!options.quantized.empty()) {
        fpgacnn::plan_widths_of(fpgacnn::load_quantized_network(options.quantized, network, nullptr,
                                                                fpgacnn::ParameterLoading::OnDemand),
                                plan_options);
    }
    const fpgacnn::NetworkPlan plan = fpgacnn::plan_network(network, plan_options);
    nlohmann::json out = fpgacnn::plan_app::plan_to_json(plan);
    out["cfg"] = options.cfg;
    std::ostringstream text;
    text << options.cfg << " at " << network.input.w << "x" << network.input.h << "\n";
    if (options.train) {
        const fpgacnn::TrainingEstimate training = fpgacnn::estimate_training(plan, options.training);
        out["training"] = fpgacnn::plan_app::training_to_json(training);
        const fpgacnn::KernelMaxima& m = plan_options.maxima;
        text << "kernel Tm=" << m.tm << " Tn=" << m.tn << " Tr=" << m.tr << " Tc=" << m.tc << " (max window "
             << m.max_kernel << ", stride " << m.max_stride << "), " << plan_options.clock_mhz << " MHz, "
             << plan_options.bandwidth_gbs << " GB/s"
             << (options.training.weight_bandwidth_gbs > 0
                     ? " feature maps + " + fmt::format("{:g}", options.training.weight_bandwidth_gbs) +
                           " GB/s weights"
                     : std::string(" DDR"))
             << ", " << plan_options.port_bits << "-bit ports (" << plan_options.fm_read_ports << " read, "
             << plan_options.fm_write_ports << " write)\n"
             << fpgacnn::format_training_table(plan, training);
    } else {
        text << fpgacnn::format_plan_table(plan);
    }
    return {out, text.str()};
}

void add_plan_options(CLI::App& app, PlanCommand& options) {
    fpgacnn::PlanOptions& p = options.plan;
    app.add_option("--cfg", options.cfg, "darknet .cfg file")->required()->check(CLI::ExistingFile);
    fpgacnn::apps::add_input_size_option(app, options.input_size,
                                         "network input size WxH, replaces the cfg's width/height");
    app.add_option("--quantized", options.quantized,
                   "quantized model file (fpgacnn-quantize) of this cfg: plan its conv layers' weight widths "
                   "(8-bit weights are stored two per word)")
        ->check(CLI::ExistingFile);
    // Bounded well above any FPGA (clock) or memory system (bandwidth): 0, NaN and inf are refused.
    app.add_option("--clock-mhz", p.clock_mhz, "kernel clock in MHz")
        ->capture_default_str()
        ->check(fpgacnn::apps::finite_range(0.001, 100000.0));
    app.add_option("--bandwidth", p.bandwidth_gbs, "DDR bandwidth shared by the AXI masters, GB/s")
        ->capture_default_str()
        ->check(fpgacnn::apps::finite_range(0.001, 100000.0));
    app.add_option("--port-bits", p.port_bits, "data width of each AXI master port")
        ->capture_default_str()
        ->check(CLI::IsMember({16, 32, 64, 128, 256, 512}));
    app.add_option("--read-ports", p.fm_read_ports,
                   "feature-map read ports in parallel (Chen et al. 2019's design: 4, with --port-bits 32)")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    app.add_option("--write-ports", p.fm_write_ports, "feature-map write ports in parallel (Chen et al.: 2)")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    app.add_option("--burst-overhead", p.burst_overhead_cycles,
                   "cycles each AXI burst costs on top of its beats and the read latency (this kernel: 0)")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000));
    app.add_option("--read-latency", p.read_latency_cycles,
                   "cycles from a read burst's address to its first beat (Zedboard HP port: 30)")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000));
    app.add_option(
           "--reads-in-flight", p.outstanding_reads,
           "read bursts the memory accepts in flight per master (this kernel's masters keep at most 4)")
        ->capture_default_str()
        ->check(CLI::Range(1, 256));
    app.add_option("--write-latency", p.write_latency_cycles,
                   "cycles from a write burst's last beat to its response")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000));
    app.add_option("--tm", p.maxima.tm, "output maps in parallel (kernel build)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    app.add_option("--tn", p.maxima.tn, "input maps per adder tree (kernel build)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    app.add_option("--tr", p.maxima.tr, "output tile rows (kernel build)")
        ->capture_default_str()
        ->check(CLI::Range(1, 4096));
    app.add_option("--tc", p.maxima.tc, "output tile columns (kernel build)")
        ->capture_default_str()
        ->check(CLI::Range(1, 4096));
    app.add_option("--max-kernel", p.maxima.max_kernel, "largest window of the kernel build")
        ->capture_default_str()
        ->check(CLI::Range(1, 15));
    app.add_option("--max-stride", p.maxima.max_stride, "largest stride of the kernel build")
        ->capture_default_str()
        ->check(CLI::Range(1, 8));
    app.add_flag("--json", options.json, "print the plan (or the exploration) as JSON");
    auto* train = app.add_flag(
        "--train", options.train,
        "time the training phases of every conv layer on this build: forward (FP), input delta (BP) and "
        "weight gradient (WG), each with its utilization (useful MACs / array MACs x cycles)");
    app.add_option("--batch", options.training.batch,
                   "--train: images per weight update (FP and BP run per image, WG sums over the batch)")
        ->capture_default_str()
        ->check(CLI::Range(1, 4096))
        ->needs(train);
    app.add_option("--weight-bandwidth", options.training.weight_bandwidth_gbs,
                   "--train: GB/s of a separate weight memory (default: weights share --bandwidth)")
        ->check(fpgacnn::apps::finite_range(0.001, 100000.0))
        ->needs(train);
    app.add_flag("--fold-batch", options.training.fold_batch,
                 "--train: FP and BP tiles take several images when a map is smaller than the Tr x Tc tile, "
                 "one weight block for all (batch reuse; the kernel as built runs one image per tile)")
        ->needs(train);
    app.add_flag(
           "--resident-inputs", options.training.resident_inputs,
           "--train: FP and BP keep every input channel's window on chip across the output-map groups (the "
           "kernel as built holds Tn channels and reloads them for each group of Tm outputs)")
        ->needs(train);
    app.add_flag(
           "--wg-reuse", options.training.wg_reuse,
           "--train: WG keeps the sums of several input groups on chip, loads each dY tile once for them "
           "and overlaps its loads (the kernel as built: one Tm x Tn block, loads not overlapped)")
        ->needs(train);
    app.add_flag(
           "--first-layer-delta", options.training.first_layer_delta,
           "--train: also time the first conv layer's BP (the image's delta, which training does not need)")
        ->needs(train);
    app.add_flag("--explore", options.explore,
                 "search the kernel builds (Tm, Tn, Tr, Tc) that fit --board for this cfg: Pareto front and "
                 "the fastest build (--tm/--tn/--tr/--tc are then ignored)");
    app.add_option(
        "--board", options.board,
        "board for --explore: a catalogue name (xc7z020, xc7z045, xczu3eg, xck26, xczu9eg, xc7vx485t, "
        "u50, u250) or a board name (Zedboard, ZCU102, ...)");
    app.add_option(
        "--boards-dir", options.boards_dir,
        "board catalogue folder (default: $FPGACNN_BOARDS_DIR, the installed or the source tree's)");
    app.add_option("--precision", options.precision, "data type of the explored builds: int16 or float32")
        ->capture_default_str()
        ->check(CLI::IsMember({"int16", "float32"}));
    app.add_option("--headroom", options.headroom_percent,
                   "percent of the board's DSP and BRAM a build may use (the rest is the platform's)")
        ->capture_default_str()
        ->check(fpgacnn::apps::finite_range(1.0, 100.0));
    app.add_option(
        "--groups", options.groups,
        "convolutions the cfg cannot express, LAYER:G[o][,...]: grouped in G, or with o split over G "
        "towers sharing the inputs (the two-tower AlexNet: 0:2o,2:2,4:2o,5:2,6:2)");
    app.add_flag("--conv-only", options.conv_only, "explore with the convolutions only (no maxpool / reorg)");
    app.add_flag("--no-int8-pairs", options.no_int8_pairs,
                 "explore builds without the pair mode of 8-bit layers (FPGACNN_INT8_PAIRS=0: for int16 "
                 "models its logic is dead weight; 8-bit layers still run, one MAC per DSP); without "
                 "--explore: plan for such a build");
    app.add_option("--plot", options.plot, "write the roofline and Pareto-front picture (PNG)");
    app.add_option("--config-out", options.config_out,
                   "write the best build's config for the HLS scripts (FPGACNN_TM=... lines)");
}

}  // namespace fpgacnn::plan_app

// fpgacnn-plan: how a darknet cfg maps onto the accelerator: per-layer tiles, arena offsets, bytes
// moved, MACs and an estimated latency for a kernel build, clock and memory bandwidth.
// Exit codes: apps/common/exit_codes.hpp.
#include <iostream>
#include <optional>
#include <string>
#include "../common/flag_checks.hpp"
#include "../common/guarded_main.hpp"
#include "../common/json_text.hpp"
#include "../common/parse_then_run.hpp"

#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "fpgacnn/darknet.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/logging.hpp"
#include "fpgacnn/plan.hpp"
#include "plan_json.hpp"

namespace {

struct Options {
    std::string cfg;
    std::string input_size;
    fpgacnn::PlanOptions plan;
    bool json = false;
};

int run(const Options& options) {
    std::optional<fpgacnn::InputSizeOverride> input_override;
    if (!options.input_size.empty()) input_override = fpgacnn::parse_input_size(options.input_size);
    const fpgacnn::Network network = fpgacnn::load_darknet_cfg(options.cfg, input_override);
    const fpgacnn::NetworkPlan plan = fpgacnn::plan_network(network, options.plan);
    if (options.json) {
        nlohmann::json out = fpgacnn::plan_app::plan_to_json(plan);
        out["cfg"] = options.cfg;
        std::cout << fpgacnn::apps::json_text(out, 2) << std::endl;
    } else {
        std::cout << options.cfg << " at " << network.input.w << "x" << network.input.h << "\n"
                  << fpgacnn::format_plan_table(plan) << std::flush;
    }
    return 0;
}

int plan_main(int argc, char** argv) {
    CLI::App app{
        "fpgacnn-plan: tiles, DMA arena, traffic and estimated latency of a darknet cfg on the accelerator\n"
        "(defaults: the Zedboard build of Chen et al. 2019, Tm=32 Tn=4 Tr=Tc=26 at 150 MHz)"};
    Options options;
    fpgacnn::PlanOptions& p = options.plan;
    app.add_option("--cfg", options.cfg, "darknet .cfg file")->required()->check(CLI::ExistingFile);
    fpgacnn::apps::add_input_size_option(app, options.input_size,
                                         "network input size WxH, replaces the cfg's width/height");
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
    app.add_option("--burst-overhead", p.burst_overhead_cycles, "cycles lost per AXI burst")
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
    app.add_flag("--json", options.json, "print the plan as JSON");
    return fpgacnn::apps::parse_then_run(app, argc, argv, [&] {
        fpgacnn::set_log_level(fpgacnn::LogLevel::Info);
        return run(options);
    });
}

}  // namespace

int main(int argc, char** argv) { return fpgacnn::apps::guarded_main("fpgacnn-plan", plan_main, argc, argv); }

// fpgacnn-plan: how a darknet cfg maps onto the accelerator: per-layer tiles, arena offsets, bytes
// moved, MACs and an estimated latency for a kernel build, clock and memory bandwidth; with
// --explore, which kernel build to synthesise for a board (explore/explorer.hpp). The flags and the
// work: plan_command.hpp (shared with the Python package's fpgacnn.plan()).
// Exit codes: apps/common/exit_codes.hpp.
#include <iostream>

#include <CLI/CLI.hpp>

#include "../common/guarded_main.hpp"
#include "../common/json_text.hpp"
#include "../common/parse_then_run.hpp"
#include "fpgacnn/logging.hpp"
#include "plan_command.hpp"

namespace {

int plan_main(int argc, char** argv) {
    CLI::App app{
        "fpgacnn-plan: tiles, DMA arena, traffic and estimated latency of a darknet cfg on the accelerator\n"
        "(defaults: the Zedboard build of Chen et al. 2019, Tm=32 Tn=4 Tr=Tc=26 at 150 MHz)"};
    fpgacnn::plan_app::PlanCommand options;
    fpgacnn::plan_app::add_plan_options(app, options);
    return fpgacnn::apps::parse_then_run(app, argc, argv, [&] {
        fpgacnn::set_log_level(fpgacnn::LogLevel::Info);
        const fpgacnn::plan_app::PlanOutput output = fpgacnn::plan_app::run_plan_command(options, app);
        if (options.json) {
            std::cout << fpgacnn::apps::json_text(output.json, 2) << std::endl;
        } else {
            std::cout << output.text << std::flush;
        }
        return 0;
    });
}

}  // namespace

int main(int argc, char** argv) { return fpgacnn::apps::guarded_main("fpgacnn-plan", plan_main, argc, argv); }

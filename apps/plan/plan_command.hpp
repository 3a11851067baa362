// fpgacnn-plan's flags and what the command computes once they are parsed, without printing: shared
// by the tool's main and the Python package's fpgacnn.plan(), so both give the same JSON.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "fpgacnn/plan.hpp"
#include "fpgacnn/training_plan.hpp"

namespace CLI {
class App;
}

namespace fpgacnn::plan_app {

struct PlanCommand {
    std::string cfg;
    std::string input_size;
    std::string quantized;  // its conv layers' weight widths (8-bit weights take half the bytes)
    fpgacnn::PlanOptions plan;
    bool json = false;
    // --train: FP / BP / WG of every conv layer and their utilization (fpgacnn/training_plan.hpp)
    bool train = false;
    fpgacnn::TrainingOptions training;
    // --explore
    bool explore = false;
    std::string board;
    std::string boards_dir;
    std::string precision = "int16";
    double headroom_percent = 80;
    std::string groups;
    bool conv_only = false;
    bool no_int8_pairs = false;
    std::string plot;
    std::string config_out;
};

/// Declares every flag of fpgacnn-plan on `app`, writing into `options`.
void add_plan_options(CLI::App& app, PlanCommand& options);

/// The command's result: the JSON document --json prints and the text form printed otherwise.
struct PlanOutput {
    nlohmann::json json;
    std::string text;
};

/// Runs the command `options` describes (`app`: the parsed flags, which tell given from default);
/// writes --plot and --config-out. Throws Error naming the file or flag on failure.
PlanOutput run_plan_command(const PlanCommand& options, const CLI::App& app);

}  // namespace fpgacnn::plan_app

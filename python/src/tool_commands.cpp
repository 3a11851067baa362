#include "tool_commands.hpp"

#include <string>
#include <vector>

#include <pybind11/stl.h>

#include <CLI/CLI.hpp>

#include "../../apps/common/json_text.hpp"
#include "../../apps/plan/plan_command.hpp"
#include "../../apps/quantize/quantize_run.hpp"
#include "errors.hpp"

namespace py = pybind11;

namespace fpgacnn::python {

namespace {

// CLI11's parse of `flags` as if given after the tool's name; its errors (unknown flag, bad value,
// missing --cfg) become fpgacnn.Error with CLI11's message.
void parse_flags(CLI::App& app, const std::string& tool, std::vector<std::string> flags) {
    flags.insert(flags.begin(), tool);
    std::vector<char*> argv;
    for (std::string& flag : flags) argv.push_back(flag.data());
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::ParseError& e) {
        throw Error(tool + ": " + e.what());
    }
}

std::string run_quantize(const std::vector<std::string>& flags) {
    CLI::App app{"fpgacnn.quantize"};
    quantize::QuantizeOptions options;
    quantize::add_quantize_options(app, options);
    parse_flags(app, "fpgacnn.quantize", flags);
    py::gil_scoped_release release;
    return apps::json_text(
        quantize::outcome_to_json(as_model_error([&] { return quantize::quantize_model(options); })));
}

std::string run_plan(const std::vector<std::string>& flags) {
    CLI::App app{"fpgacnn.plan"};
    plan_app::PlanCommand options;
    plan_app::add_plan_options(app, options);
    parse_flags(app, "fpgacnn.plan", flags);
    py::gil_scoped_release release;
    return apps::json_text(as_model_error([&] { return plan_app::run_plan_command(options, app); }).json);
}

}  // namespace

void register_tool_commands(py::module_& module) {
    module.def(
        "run_quantize", &run_quantize, py::arg("flags"),
        "fpgacnn-quantize with these flags; returns what its --json prints (internal: fpgacnn.quantize).");
    module.def("run_plan", &run_plan, py::arg("flags"),
               "fpgacnn-plan with these flags; returns what its --json prints (internal: fpgacnn.plan).");
}

}  // namespace fpgacnn::python

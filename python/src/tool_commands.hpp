// fpgacnn.quantize() and fpgacnn.plan(): the tools' own flags, parsed by the tools' own declarations,
// and the tools' own work and JSON (apps/quantize/quantize_run.hpp, apps/plan/plan_command.hpp).
#pragma once

#include <pybind11/pybind11.h>

namespace fpgacnn::python {

/// Adds run_quantize(flags) and run_plan(flags) to `module`: each takes the tool's command-line
/// flags and returns the JSON text its --json prints.
void register_tool_commands(pybind11::module_& module);

}  // namespace fpgacnn::python

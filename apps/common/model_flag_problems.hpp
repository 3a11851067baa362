// The checks of model and device flags that CLI11 cannot make flag by flag (combinations), shared by
// the tools; a header of its own so a main() can run them without including CLI11 (parse_then_run.hpp).
#pragma once

#include <string>

#include "exit_codes.hpp"
#include "fpgacnn/backend.hpp"

namespace fpgacnn::apps {

/// A --precision / --quantized combination CLI11 cannot reject by itself; empty when fine.
inline std::string device_options_problem(Precision precision, const std::string& quantized) {
    if (!quantized.empty() && precision == Precision::Float)
        return "--quantized needs a fixed-point --precision: int16, int8, mixed (or auto)";
    if (quantized.empty() && precision == Precision::Mixed)
        return "--precision mixed runs the per-layer widths of a quantized model file: pass --quantized FILE";
    return "";
}

/// --weights missing where the model needs it (no --quantized to run from); empty when fine.
inline std::string model_files_problem(const std::string& weights, const std::string& quantized) {
    if (weights.empty() && quantized.empty()) {
        return "no model parameters: pass --weights FILE (the darknet .weights), or --quantized FILE (an "
               "int16 model from fpgacnn-quantize, which runs without the float weights)";
    }
    return "";
}

/// device_options_problem, else model_files_problem: the checks of the tools with --weights.
inline std::string model_flags_problem(const std::string& weights, Precision precision,
                                       const std::string& quantized) {
    std::string problem = device_options_problem(precision, quantized);
    return problem.empty() ? model_files_problem(weights, quantized) : problem;
}

/// Throws CommandLineError (exit code 2) with model_flags_problem's text when there is a problem.
inline void require_model_flags(const std::string& weights, Precision precision,
                                const std::string& quantized) {
    if (std::string problem = model_flags_problem(weights, precision, quantized); !problem.empty())
        throw CommandLineError(problem);
}

}  // namespace fpgacnn::apps

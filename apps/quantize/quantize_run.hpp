// What fpgacnn-quantize does once its flags are parsed, without printing: calibrate (or explore the
// widths), write the quantized model and the plot, and measure the accuracy report. Shared by the
// tool's main and the Python package's fpgacnn.quantize(), so both give the same outcome_to_json.
#pragma once

#include "quantize_options.hpp"
#include "report_writers.hpp"

namespace fpgacnn::quantize {

/// Runs the command `options` describes (QuantizeOptions::json and the log flags are the caller's).
/// Throws Error naming the file or flag on failure; nothing is written before the model loads.
QuantizeOutcome quantize_model(const QuantizeOptions& options);

}  // namespace fpgacnn::quantize

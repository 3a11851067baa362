// The CPU int16 backend: runs a QuantizedNetwork layer by layer exactly per docs/arithmetic.md,
// with packed weights, SIMD (run-time dispatch) and a thread pool.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/int16_ops.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

/// Runs a QuantizedNetwork in int16 on the CPU, bit-exact with the kernel. The engine copies what it
/// needs (shapes, exponents, packed parameters): `network` may go once it is built. One run() at a
/// time: an engine is used by one thread (it spreads each layer over its thread pool itself).
class FPGACNN_API Int16Engine {
public:
    /// threads = 0: the process-wide thread pool over all cores (the float path's too); else a pool of its
    /// own.
    /// keep_layer_outputs = false: a layer's buffer is reused once its readers have run (less memory;
    /// layer_output() then serves the last layer only). The parameters are packed one layer at a time
    /// (ResidentLayer: from the model file when `network` left them there). Throws Error when this CPU
    /// lacks `isa` or the network breaks the contract (exponents, shapes, widths).
    explicit Int16Engine(const QuantizedNetwork& network, Int16Isa isa = best_int16_isa(), int threads = 0,
                         bool keep_layer_outputs = true);
    ~Int16Engine();
    Int16Engine(const Int16Engine&) = delete;
    Int16Engine& operator=(const Int16Engine&) = delete;

    /// One frame; `input` holds network.input.size() int16 values at exponent input_q.
    /// Returns the last layer's output. A [region] layer's output is its int16 input unchanged
    /// (the region activation runs in float on the host, see Int16 backend in the pipeline).
    const std::vector<int16_t>& run(const int16_t* input);

    /// Output of layer i from the last run, at exponent layers[i].output_q (any layer only with
    /// keep_layer_outputs, else the last one).
    const std::vector<int16_t>& layer_output(int i) const;
    /// Bytes of every conv's packed weights and biases: the parameters the engine keeps.
    std::size_t packed_parameter_bytes() const;
    /// Wall-clock milliseconds of every layer in the last run().
    const std::vector<double>& layer_milliseconds() const;

    /// The instruction-set path the convs run.
    Int16Isa isa() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace fpgacnn

// The quantized model file (.fq16): a QuantizedNetwork's exponents and int16 parameters, versioned and
// checksummed so that a file made for another cfg, input size, weights or arithmetic contract is
// refused with a message instead of giving wrong detections. Layout in docs/tools/fpgacnn-quantize.md.
#pragma once

#include <cstdint>
#include <string>

#include "fpgacnn/export.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

/// Bumped whenever the file layout changes (2: per-layer widths). Older formats still load; a newer
/// one is refused with a message.
constexpr std::uint32_t kQuantizedFormatVersion = 2;

/// FNV-1a 64 of the parsed layer list: the input shape and, per layer, its kind, shapes and the
/// cfg options that shape the computation (not the weights). Differs for another cfg or --input size.
FPGACNN_API std::uint64_t network_fingerprint(const Network& network);

/// FNV-1a 64 of the float parameters (conv weights and biases, after batch-norm folding).
FPGACNN_API std::uint64_t weights_fingerprint(const Network& network);

/// A quantized model file's header, as load_quantized_network read it (its `info` argument).
struct FPGACNN_API QuantizedFileInfo {
    std::uint32_t format_version = 0;       ///< file layout version (<= kQuantizedFormatVersion)
    std::uint32_t contract_version = 0;     ///< the arithmetic contract the exponents were chosen for
    std::uint64_t network_fingerprint = 0;  ///< network_fingerprint() of the network quantized
    std::uint64_t weights_fingerprint = 0;  ///< weights_fingerprint() of the float weights quantized
    std::uint64_t tiling_fingerprint = 0;   ///< 0: no tiling plan bound to the file
    std::uint64_t bytes = 0;                ///< the file's size, checksum included
};

/// Writes atomically (a temporary file in the same folder, then rename). `tiling_fingerprint`
/// binds the file to one tiling plan of the accelerator (0: none). Throws Error naming the file.
FPGACNN_API void save_quantized_network(const QuantizedNetwork& quantized, const std::string& path,
                                        std::uint64_t tiling_fingerprint = 0);

/// Where load_quantized_network puts the int16 parameters.
enum class ParameterLoading {
    InMemory,  ///< in the returned layers (reports, tools, tests)
    /// Left in the file (QuantizedNetwork::parameter_source): the backends read one layer at a time
    /// while they pack or upload it, so the host never holds the whole model besides the packed copy
    /// or the device buffer. Checked like InMemory at load; a layer whose bytes changed since is refused.
    OnDemand,
};

/// Reads a file written by save_quantized_network for `network` (parsed from the same cfg with the
/// same input size), streaming it (the checksum pass never holds the file). Throws Error naming the
/// file when the magic, format or contract version, size, checksum or network fingerprint do not
/// match; when `network` has weights loaded they must be the ones that were quantized (without
/// weights that check is skipped: the int16 backends need the file alone). The returned
/// QuantizedNetwork holds `network`.
FPGACNN_API QuantizedNetwork load_quantized_network(const std::string& path, Network network,
                                                    QuantizedFileInfo* info = nullptr,
                                                    ParameterLoading loading = ParameterLoading::InMemory);

}  // namespace fpgacnn

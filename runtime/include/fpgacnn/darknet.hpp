// Reading and writing darknet models: .cfg parsing, .weights loading, batch-norm folding and
// deterministic synthetic weights for cfgs that have no trained weights.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fpgacnn/export.hpp"
#include "fpgacnn/network.hpp"

namespace fpgacnn {

/// Replaces the cfg's [net] width/height (e.g. run yolov2.cfg, written for 608x608, at 416x416).
struct FPGACNN_API InputSizeOverride {
    int width = 0;   ///< pixels (darknet needs a multiple of 32 for YOLO's strides)
    int height = 0;  ///< pixels
};

/// Parses "WxH" (e.g. "416x416"); throws Error on anything else.
FPGACNN_API InputSizeOverride parse_input_size(const std::string& text);

/// Parses a darknet .cfg and infers every layer's shapes. Throws Error naming file, line and
/// option for unknown sections/options, bad values and impossible shapes; for a path that is not a
/// regular file or a file above 4 MiB; for shapes above the limits (channels, values per tensor and
/// weights per layer, see docs/reliability.md); and when the network needs more host memory than
/// host_memory_budget() allows (estimate_network_memory), before anything is allocated.
FPGACNN_API Network load_darknet_cfg(const std::string& cfg_path,
                                     std::optional<InputSizeOverride> input_override = std::nullopt);

/// load_darknet_cfg for fpgacnn-plan: the sections fpgacnn does not run ([connected], [softmax],
/// [avgpool], [dropout], [cost], [crop]; darknet's classifier cfgs) become LayerType::Unsupported
/// layers with darknet's output shapes instead of an error, so the conv layers around them can be
/// planned and the rest listed as host layers. No engine runs such a network.
FPGACNN_API Network load_darknet_cfg_for_planning(
    const std::string& cfg_path, std::optional<InputSizeOverride> input_override = std::nullopt);

/// load_darknet_cfg on cfg text already in memory; `name` stands for the file in messages.
FPGACNN_API Network parse_darknet_cfg(const std::string& text, const std::string& name,
                                      std::optional<InputSizeOverride> input_override = std::nullopt);

/// Loads a darknet .weights file into the network's conv layers (header 0.1 with 32-bit `seen`,
/// 0.2+ with 64-bit). Throws Error with expected vs actual bytes and the layer that ran out
/// when the file does not match the cfg.
FPGACNN_API void load_darknet_weights(Network& network, const std::string& weights_path);

/// Merges batch-norm into weights and biases exactly as darknet's inference computes it:
/// (x - mean) / (sqrt(var) + .000001f) * scale + bias.
FPGACNN_API void fold_batchnorm(Network& network);

/// Convenience: cfg + weights + fold.
FPGACNN_API Network load_darknet_model(const std::string& cfg_path, const std::string& weights_path,
                                       std::optional<InputSizeOverride> input_override = std::nullopt);

/// Frees every conv layer's float parameters (weights, biases, batch-norm arrays) and marks the
/// network as having no weights: what the int16 backends need of it is its shapes alone, and on a
/// board the float copy is the largest allocation there is. The float backend refuses it afterwards.
FPGACNN_API void release_float_parameters(Network& network);

/// Fills every conv layer with deterministic pseudo-random parameters (same seed, same values on
/// every machine), scaled so activations stay in a sane range through deep networks.
FPGACNN_API void fill_synthetic_weights(Network& network, std::uint64_t seed);

/// Writes the network's parameters as a darknet .weights file (version 0.2, 64-bit seen).
/// Writes to a temporary file and renames, so no partial file is left on failure.
FPGACNN_API void save_darknet_weights(const Network& network, const std::string& weights_path);

/// save_darknet_weights with `seen` (the images the parameters were trained on, darknet's
/// *net->seen) in the header, as darknet's save_weights writes it: darknet derives its iteration
/// (seen / (batch * subdivisions)) and the learning-rate schedule from it when it loads the file.
FPGACNN_API void save_darknet_weights(const Network& network, const std::string& weights_path,
                                      std::uint64_t seen);

/// Number of bytes a .weights file for this network must have (with a 0.2 header).
FPGACNN_API std::size_t expected_weights_bytes(const Network& network);

}  // namespace fpgacnn

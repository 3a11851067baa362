// Golden-twin checking (DetectorOptions::verify): one frame in N is recomputed on the CPU int16
// backend, which is bit-exact with the kernel by contract (docs/arithmetic.md), and every layer's
// device output is compared with it bit for bit. What a mismatch looks like, and the counters a
// caller (fpgacnn-bench, fpgacnn-camera, a server's metrics) reads from Detector::verification().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include "fpgacnn/export.hpp"

namespace fpgacnn {

/// What the detector does after a mismatch (--on-mismatch).
enum class OnMismatch {
    Log,       ///< log and count it; keep running on the device
    Fallback,  ///< also run this frame and every later one on the CPU int16 backend
};

/// "log" or "fallback": the --on-mismatch value.
FPGACNN_API std::string on_mismatch_name(OnMismatch value);
/// The inverse of on_mismatch_name; throws Error listing the valid values.
FPGACNN_API OnMismatch parse_on_mismatch(const std::string& text);

/// Whether and how a Detector checks its device's results (DetectorOptions::verify).
struct FPGACNN_API GoldenTwinOptions {
    /// Verify one frame in `every` (frames 0, N, 2N, ... of the detector); 0: off, at no cost.
    int every = 0;
    OnMismatch on_mismatch = OnMismatch::Log;  ///< what a mismatch does besides being counted and logged
};

/// Where a device's results first differ from the CPU int16 backend's.
struct FPGACNN_API TwinMismatch {
    std::uint64_t frame = 0;  ///< the detector's frame number (0-based, counting every frame it ran)
    int layer = -1;           ///< the first layer whose output differs (network layer index)
    std::string layer_kind;   ///< e.g. "convolutional"
    int channel = 0;          ///< the first differing value of the layer's CHW output
    int row = 0;              ///< its row in the output, pixels
    int column = 0;           ///< its column in the output, pixels
    /// The planner's output tile holding that value, row-major (tile_row * column_tiles +
    /// tile_column); -1 for layers not tiled by output rows and columns (route, reorg, region).
    int tile = -1;
    int tile_row = -1;                 ///< the tile's row among the layer's tiles (0-based; -1: not tiled)
    int tile_column = -1;              ///< the tile's column among the layer's tiles (0-based; -1: not tiled)
    int row_tiles = 0;                 ///< tiles down the layer's output (LayerPlan::row_tiles; 0: not tiled)
    int column_tiles = 0;              ///< tiles across it (LayerPlan::col_tiles; 0: not tiled)
    int16_t device_value = 0;          ///< the device's value there, int16 at the layer's output exponent
    int16_t cpu_value = 0;             ///< the CPU int16 backend's value there (the expected one)
    std::size_t differing_values = 0;  ///< in this layer
    /// One line: frame, layer, channel, position, tile, both values.
    std::string text() const;
};

/// Detector::verification(): counts since the detector was made.
struct FPGACNN_API VerificationStats {
    int every = 0;                               ///< GoldenTwinOptions::every; 0: checking is off
    std::uint64_t frames_verified = 0;           ///< frames recomputed on the CPU and compared
    std::uint64_t mismatches = 0;                ///< frames whose device results differed
    bool fell_back = false;                      ///< OnMismatch::Fallback switched to the CPU
    std::optional<TwinMismatch> first_mismatch;  ///< the first mismatch seen; absent while there is none
    std::optional<TwinMismatch> last_mismatch;   ///< the latest mismatch seen; absent while there is none
};

}  // namespace fpgacnn

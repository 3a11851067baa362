// On-chip buffers of the accelerator and the AXI traffic counters the native build keeps. In HLS
// every array below becomes BRAM (or registers where partitioned); natively they live on the stack
// of one call, so no state survives between layers.
#pragma once

#include <stdint.h>

#include "fpgacnn/kernel/accel.hpp"
#include "fpgacnn/kernel/config.hpp"

namespace fpgacnn {
namespace kernel {
namespace detail {

/// Tn input maps of one input tile (output tile plus halo), in input-map-major order.
typedef int16_t InputTile[kTn][kInputTileRows][kInputTileCols];

/// One (Tm, Tn) weight block as it arrives from memory: [tap = ky*K + kx][n*Tm + m] for the layer's
/// K, so a block is one contiguous burst and one tap's Tm x Tn weights sit side by side (one register
/// per multiplier once the lane dimension is partitioned).
static const int kWeightLanes = kTn * kTm;
typedef int16_t WeightBlock[kMaxK * kMaxK][kWeightLanes];

/// int32 accumulators of one output tile, output map innermost (one value per adder tree).
typedef int32_t OutputTile[kTr][kTc][kTm];

/// WG's sums (contract 6): one 64-bit accumulator per multiplier and tap, shaped like a weight block
/// ([tap][n*Tm + m]) because it becomes one: arith::mac64 says why int32 is not enough.
typedef int64_t GradientBlock[kMaxK * kMaxK][kWeightLanes];

/// Lanes a maxpool pass handles: the input tile holds Tn maps, the output tile Tm.
static const int kPoolLanes = kTn < kTm ? kTn : kTm;

/// Synthesis: counting compiles away.
struct NoTraffic {
    void fm_read(uint32_t, uint32_t) {}
    void fm_write(uint32_t, uint32_t) {}
    void param_read(uint32_t) {}
    void array_cycles(uint64_t) {}
};

/// Native: one burst per call of `elements` feature-map elements of `element_bytes` each
/// (arith::fm_element_bytes), or of `elements` 16-bit parameter words.
struct CountTraffic {
    TrafficCounters* counters;
    void fm_read(uint32_t elements, uint32_t element_bytes) {
        counters->fm_read_bursts += 1;
        counters->fm_read_bytes += static_cast<uint64_t>(element_bytes) * elements;
    }
    void fm_write(uint32_t elements, uint32_t element_bytes) {
        counters->fm_write_bursts += 1;
        counters->fm_write_bytes += static_cast<uint64_t>(element_bytes) * elements;
    }
    void param_read(uint32_t elements) {
        counters->param_read_bursts += 1;
        counters->param_read_bytes += 2u * elements;
    }
    /// The emu's TrafficCounters have no field for it (a public struct): only tests that instantiate
    /// run_command with a Traffic of their own count the array's cycles.
    void array_cycles(uint64_t) {}
};

inline int min_int(int a, int b) { return a < b ? a : b; }
inline int max_int(int a, int b) { return a > b ? a : b; }

}  // namespace detail
}  // namespace kernel
}  // namespace fpgacnn

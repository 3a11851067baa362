// The parts of the latency model (latency_model.cpp, docs/kernel.md "Latency model") that every
// pass of the Tm x Tn array shares: bytes and bursts of a step, the memory model that times them, the
// RTL's job pipeline and its control cycles. The forward layers (estimate_command) and the training
// phases (training_latency.cpp) are timed with the same parts, so BP and WG are costed exactly as FP.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "fpgacnn/plan.hpp"

namespace fpgacnn::plan_detail {

/// Bytes and bursts of one step on the feature-map and parameter ports. A feature-map port moves
/// port_bits / element_bits elements a cycle at either storage width (the byte-wide ports of 8-bit
/// tensors are as many elements wide as the word-wide ones), so its cycles count elements while the
/// DDR counts bytes.
struct Transfer {
    std::uint64_t fm_elements = 0;
    std::uint64_t fm_beats = 0;  // of the port: whole beats the elements span
    std::uint64_t fm_bytes = 0;
    std::uint64_t fm_bursts = 0;
    std::uint64_t param_beats = 0;
    std::uint64_t param_bytes = 0;
    std::uint64_t param_bursts = 0;
};

/// Elements (feature maps) or parameter words one beat of a port carries, and the beats a run of
/// `count` of them starting at element `first` (counted from a beat-aligned base) spans.
struct PortBeats {
    std::uint64_t per_beat = 1;
    std::uint64_t of(std::uint64_t first, std::uint64_t count) const {
        if (count == 0) return 0;
        return (first % per_beat + count + per_beat - 1) / per_beat;
    }
};
inline PortBeats port_beats(const PlanOptions& o) {
    PortBeats p;
    p.per_beat = static_cast<std::uint64_t>(std::max(1, o.port_bits / std::max(8, o.element_bits)));
    return p;
}

/// Cycles the RTL's control adds to the data it moves, measured on its cycles (docs/kernel.md "The
/// latency model"): per job (the loader's states between jobs), per compute pass (the pipeline's
/// depth: G, S0, S1, S2, S3 and the hand-off), per stored map group (requantize pipeline, credit),
/// per command (check, the serial multiplier's per-command products, the last write response).
struct ControlCycles {
    double job = 6;
    double compute = 8;
    double store_group = 8;
    double store_burst = 1;  // per map-row burst written
    /// Cycles a read slot stays taken beyond the latency and the burst's beats: the queue entry retires
    /// with the last beat, then the loader's next row address and the AR handshake.
    double read_slot = 7;
    double command = 40;
    double reorg_segment = 8;
    /// Read bursts a master of the RTL keeps in flight at most: its command queue
    /// (fpgacnn_axi_reader.sv QUEUE), whatever more the memory would accept.
    double reads_in_flight = 4;
};
inline const ControlCycles kControl;

class Model {
public:
    /// `weight_bandwidth_gbs` > 0: the parameters have a memory of their own at that bandwidth (the
    /// training accelerator of issue 36: 25.6 GB/s for weights beside 205 GB/s for feature maps);
    /// 0: they share PlanOptions::bandwidth_gbs with the feature maps (every FPGA board here).
    explicit Model(const PlanOptions& o, double weight_bandwidth_gbs = 0)
        : read_ports_(std::max(1, o.fm_read_ports)),
          write_ports_(std::max(1, o.fm_write_ports)),
          ddr_bytes_per_cycle_(o.bandwidth_gbs * 1e9 / (o.clock_mhz * 1e6)),
          param_bytes_per_cycle_(weight_bandwidth_gbs * 1e9 / (o.clock_mhz * 1e6)),
          latency_(std::max(0, o.read_latency_cycles)),
          in_flight_(
              std::min(static_cast<double>(std::max(1, o.outstanding_reads)), kControl.reads_in_flight)),
          write_latency_(std::max(0, o.write_latency_cycles)),
          overhead_(o.burst_overhead_cycles) {}

    /// Cycles of a stream of read bursts: `bursts` bursts of `beats` beats in all. The first beat comes
    /// `latency` cycles after the first address; then the beats follow back to back, unless too few
    /// bursts fit in flight to hide the latency: each holds its slot from its address to its last beat
    /// and read_slot cycles more, so ceil(n / in flight) rounds of latency + length + read_slot cycles.
    double read_stream(double bursts, double beats) const {
        if (bursts <= 0) return 0;
        const double length = beats / bursts;
        const double beat_bound = bursts * (length + overhead_);
        const double rounds = std::ceil(bursts / in_flight_);
        const double slot_bound = (rounds - 1) * (latency_ + length + kControl.read_slot) +
                                  std::min(bursts, in_flight_) - 1 + length;
        return latency_ + std::max(beat_bound, slot_bound);
    }
    /// Cycles of a read step: the feature-map rows on their port(s) while the parameters arrive on
    /// theirs, and never faster than the DDR.
    double read(const Transfer& t) const {
        const double fm = read_stream(static_cast<double>(t.fm_bursts) / read_ports_,
                                      static_cast<double>(t.fm_beats) / read_ports_);
        const double params =
            read_stream(static_cast<double>(t.param_bursts), static_cast<double>(t.param_beats));
        return std::max({fm, params, ddr(t)});
    }
    /// Cycles of a write step: one element a cycle (this kernel's requantizer feeds the writer one a
    /// cycle whatever its width; designs with more write ports store that many at once), the
    /// per-burst overhead, and the DDR.
    double write(const Transfer& t) const {
        const double fm = (static_cast<double>(t.fm_elements) +
                           static_cast<double>(t.fm_bursts) * (overhead_ + kControl.store_burst)) /
                          write_ports_;
        return std::max(fm, ddr(t));
    }
    double write_latency() const { return write_latency_; }

private:
    double ddr(const Transfer& t) const {
        if (param_bytes_per_cycle_ > 0) {
            return std::max(static_cast<double>(t.fm_bytes) / ddr_bytes_per_cycle_,
                            static_cast<double>(t.param_bytes) / param_bytes_per_cycle_);
        }
        return static_cast<double>(t.fm_bytes + t.param_bytes) / ddr_bytes_per_cycle_;
    }

    double read_ports_;
    double write_ports_;
    double ddr_bytes_per_cycle_;
    double param_bytes_per_cycle_;  // 0: the parameters share ddr_bytes_per_cycle_
    double latency_;
    double in_flight_;
    double write_latency_;
    double overhead_;
};

/// The job pipeline of conv and maxpool (the recurrence in the header comment).
class JobPipeline {
public:
    /// A job: its load, its compute, whether it is its map group's first / last.
    void job(double load, double compute, bool first_of_group, bool last_of_group, double store) {
        const double load_start = std::max(load_end_, compute_end_[1]);  // its bank: job n-2 computed
        load_end_ = load_start + load;
        double compute_start = std::max(load_end_, compute_end_[0]);
        if (first_of_group) compute_start = std::max(compute_start, store_end_[1]);  // accumulator bank
        compute_end_[1] = compute_end_[0];
        compute_end_[0] = compute_start + compute;
        if (!last_of_group) return;
        const double store_start = std::max(compute_end_[0], store_end_[0]);
        store_end_[1] = store_end_[0];
        store_end_[0] = store_start + store;
    }
    double end() const { return std::max(store_end_[0], compute_end_[0]); }

private:
    double load_end_ = 0;
    double compute_end_[2] = {0, 0};  // jobs n-1, n-2
    double store_end_[2] = {0, 0};    // map groups m-1, m-2
};

inline void count(LayerEstimate& e, const Transfer& t, bool write) {
    if (write) {
        e.fm_write_bytes += t.fm_bytes;
        e.fm_write_bursts += t.fm_bursts;
    } else {
        e.fm_read_bytes += t.fm_bytes;
        e.fm_read_bursts += t.fm_bursts;
    }
    e.param_read_bytes += t.param_bytes;
    e.param_read_bursts += t.param_bursts;
}

/// Bytes of one feature-map element of a tensor stored at `bits`: the design's element_bits, but
/// one byte for an 8-bit tensor (arith::fm_element_bytes) in the kernel's int16 design.
inline std::uint64_t fm_element_bytes(const PlanOptions& o, std::uint32_t bits) {
    if (o.element_bits == arith::kDataBits) return arith::fm_element_bytes(static_cast<int>(bits));
    return static_cast<std::uint64_t>(o.element_bits / 8);
}

/// Where a tile's rows sit in their CHW tensor: the element offset of map `first_map`'s row 0,
/// column 0, and the plane and row pitches (what the beats of each row depend on).
struct TensorPlace {
    std::uint64_t map_offset = 0;  // tensor offset + first_map * height * width
    std::uint64_t plane = 0;
    std::uint64_t width = 0;
};

/// The bursts of kernel::detail::load_input_tile: one per existing row of each existing map, each as
/// many beats as its elements span from their place in the arena.
inline Transfer input_tile(std::uint64_t element_bytes, const PortBeats& port, const TensorPlace& at,
                           int lanes, int valid_maps, int height, int width, int first_row, int first_col,
                           int rows, int cols) {
    Transfer t;
    const int col_begin = std::max(first_col, 0);
    const int col_end = std::min(first_col + cols, width);
    if (col_end <= col_begin) return t;
    const int row_begin = std::max(first_row, 0);
    const int row_end = std::min(first_row + rows, height);
    const int existing_rows = std::max(0, row_end - row_begin);
    const int maps = std::min(lanes, valid_maps);
    const auto length = static_cast<std::uint64_t>(col_end - col_begin);
    t.fm_bursts = static_cast<std::uint64_t>(maps) * existing_rows;
    t.fm_elements = t.fm_bursts * length;
    t.fm_bytes = t.fm_elements * element_bytes;
    if (port.per_beat == 1) {
        t.fm_beats = t.fm_elements;
        return t;
    }
    for (int n = 0; n < maps; ++n) {
        for (int y = row_begin; y < row_end; ++y) {
            const std::uint64_t first = at.map_offset + static_cast<std::uint64_t>(n) * at.plane +
                                        static_cast<std::uint64_t>(y) * at.width +
                                        static_cast<std::uint64_t>(col_begin);
            t.fm_beats += port.of(first, length);
        }
    }
    return t;
}

inline Transfer output_tile(std::uint64_t element_bytes, int maps, int rows, int cols) {
    Transfer t;
    t.fm_bursts = static_cast<std::uint64_t>(maps) * rows;
    t.fm_elements = t.fm_bursts * static_cast<std::uint64_t>(cols);
    t.fm_beats = t.fm_elements;  // the store's rate: one element a cycle
    t.fm_bytes = t.fm_elements * element_bytes;
    return t;
}

/// Contract 7's element-wise ops (upsample_shortcut_latency.cpp): the kernel's row-segment loops
/// (kernels/src/upsample_shortcut_layer.hpp) burst for burst.
LayerEstimate estimate_upsample(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model);
/// The shortcut op (see estimate_upsample).
LayerEstimate estimate_shortcut(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model);

/// estimate_command with a given memory model (a separate weight memory: Model's second argument);
/// milliseconds are not filled in.
LayerEstimate estimate_command_on(const kernel::LayerCommand& command, const PlanOptions& options,
                                  const Model& model);

}  // namespace fpgacnn::plan_detail

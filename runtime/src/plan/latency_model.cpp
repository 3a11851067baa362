// The latency model: walks the kernel's own loops (kernels/src/*_layer.hpp) for one command,
// counting every burst exactly as the native kernel counts it, and times them as the kernel's RTL
// (kernels/rtl, docs/kernel.md "The RTL twin") executes them, against the RTL's measured cycles
// (docs/kernel.md "The latency model"):
//   conv and maxpool run as a pipeline of jobs (one input-map group of one output-map group of one
//   tile): the loader fills bank job % 2 (input rows on the feature-map master while the weight block
//   arrives on the parameter master) while compute runs the previous job; a job waits for its bank
//   (compute of job n-2 done) and a map group's first job for its accumulator bank (store of group
//   m-2 done); a map group is stored while the next is computed. The recurrence below follows these
//   rules job by job.
//   reorg: one row segment at a time, read then written.
//   A stream of n read bursts of L beats takes latency + n * max(L + overhead, (latency + L) / in
//   flight): the first beat after the latency, then one beat a cycle while enough bursts are in
//   flight to hide it. A beat is port_bits wide: a read of L elements starting `lead` elements into
//   a beat takes ceil((lead + L) / elements a beat) beats (the kernel reads whole beats from the
//   arena's own offsets, so the leads are the command's). The store writes one element a cycle
//   (the requantizer's rate) at every port width. Every transfer is also bounded by the DDR's bytes
//   per cycle.
#include <algorithm>
#include <cmath>
#include <vector>

#include "fpgacnn/plan.hpp"

namespace fpgacnn {

LayerEstimate& LayerEstimate::operator+=(const LayerEstimate& o) {
    macs += o.macs;
    fm_read_bytes += o.fm_read_bytes;
    fm_read_bursts += o.fm_read_bursts;
    fm_write_bytes += o.fm_write_bytes;
    fm_write_bursts += o.fm_write_bursts;
    param_read_bytes += o.param_read_bytes;
    param_read_bursts += o.param_read_bursts;
    compute_cycles += o.compute_cycles;
    load_cycles += o.load_cycles;
    store_cycles += o.store_cycles;
    total_cycles += o.total_cycles;
    milliseconds += o.milliseconds;
    return *this;
}

namespace {

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
PortBeats port_beats(const PlanOptions& o) {
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
const ControlCycles kControl;

class Model {
public:
    explicit Model(const PlanOptions& o)
        : read_ports_(std::max(1, o.fm_read_ports)),
          write_ports_(std::max(1, o.fm_write_ports)),
          ddr_bytes_per_cycle_(o.bandwidth_gbs * 1e9 / (o.clock_mhz * 1e6)),
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
        return static_cast<double>(t.fm_bytes + t.param_bytes) / ddr_bytes_per_cycle_;
    }

    double read_ports_;
    double write_ports_;
    double ddr_bytes_per_cycle_;
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

void count(LayerEstimate& e, const Transfer& t, bool write) {
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
std::uint64_t fm_element_bytes(const PlanOptions& o, std::uint32_t bits) {
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
Transfer input_tile(std::uint64_t element_bytes, const PortBeats& port, const TensorPlace& at, int lanes,
                    int valid_maps, int height, int width, int first_row, int first_col, int rows, int cols) {
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

Transfer output_tile(std::uint64_t element_bytes, int maps, int rows, int cols) {
    Transfer t;
    t.fm_bursts = static_cast<std::uint64_t>(maps) * rows;
    t.fm_elements = t.fm_bursts * static_cast<std::uint64_t>(cols);
    t.fm_beats = t.fm_elements;  // the store's rate: one element a cycle
    t.fm_bytes = t.fm_elements * element_bytes;
    return t;
}

LayerEstimate estimate_conv(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model) {
    LayerEstimate e;
    const int tm = o.maxima.tm, tn = o.maxima.tn;
    const int out_h = static_cast<int>(c.out_h), out_w = static_cast<int>(c.out_w),
              out_c = static_cast<int>(c.out_c);
    const int k = static_cast<int>(c.kernel_size), s = static_cast<int>(c.stride),
              pad = static_cast<int>(c.pad);
    const int in_c = static_cast<int>(c.in_c);
    const int groups = (in_c + tn - 1) / tn;
    const std::uint64_t element_bytes = static_cast<std::uint64_t>(o.element_bits / 8);
    const std::uint64_t input_bytes = fm_element_bytes(o, c.input_bits);
    const std::uint64_t output_bytes = fm_element_bytes(o, c.output_bits);
    // One burst of the block's storage words: 8-bit weights are two per word (load_weight_block).
    const std::uint64_t block_words =
        arith::storage_words(static_cast<uint32_t>(tm * tn * k * k), static_cast<int>(c.weight_bits));
    const std::uint64_t block_bytes = element_bytes * block_words;
    const PortBeats port = port_beats(o);
    TensorPlace input_place;
    input_place.plane = static_cast<std::uint64_t>(c.in_h) * c.in_w;
    input_place.width = c.in_w;
    e.macs = static_cast<std::uint64_t>(out_c) * out_h * out_w * in_c * k * k;
    // Pair mode (8-bit input and weights, in a build that has it): two output columns per multiplier
    // and cycle.
    const bool pairs = o.maxima.int8_pairs && kernel::conv_runs_in_pairs(c);
    // The parameter beats of the first map group's blocks and biases stand for every map group's
    // (the later ones sit a whole block row further on: at most a beat more or less each).
    Transfer bias;
    bias.param_bytes = element_bytes * static_cast<std::uint64_t>(tm);
    bias.param_beats = port.of(c.bias_offset, static_cast<std::uint64_t>(tm));
    bias.param_bursts = 1;

    JobPipeline pipeline;
    for (int row0 = 0; row0 < out_h; row0 += static_cast<int>(c.tile_rows)) {
        const int rows = std::min(static_cast<int>(c.tile_rows), out_h - row0);
        for (int col0 = 0; col0 < out_w; col0 += static_cast<int>(c.tile_cols)) {
            const int cols = std::min(static_cast<int>(c.tile_cols), out_w - col0);
            const int win_rows = (rows - 1) * s + k, win_cols = (cols - 1) * s + k;
            // The input tile bursts are the same for every output-map group of this tile.
            // A map group's first job also reads the biases: one more burst on the parameter master,
            // ahead of the weight block.
            std::vector<Transfer> loads(static_cast<std::size_t>(groups));
            std::vector<double> load(static_cast<std::size_t>(groups));
            double first_load = 0;
            for (int g = 0; g < groups; ++g) {
                input_place.map_offset = c.input_offset + static_cast<std::uint64_t>(g) *
                                                              static_cast<std::uint64_t>(tn) *
                                                              input_place.plane;
                Transfer t =
                    input_tile(input_bytes, port, input_place, tn, in_c - g * tn, static_cast<int>(c.in_h),
                               static_cast<int>(c.in_w), row0 * s - pad, col0 * s - pad, win_rows, win_cols);
                t.param_bytes = block_bytes;
                t.param_beats =
                    port.of(c.weight_offset + static_cast<std::uint64_t>(g) * block_words, block_words);
                t.param_bursts = 1;
                loads[static_cast<std::size_t>(g)] = t;
                load[static_cast<std::size_t>(g)] = model.read(t) + kControl.job;
                if (g == 0) {
                    t.param_beats += bias.param_beats;
                    t.param_bytes += bias.param_bytes;
                    t.param_bursts += bias.param_bursts;
                    first_load = model.read(t) + kControl.job;
                }
            }
            const int column_steps = pairs ? (cols + 1) / 2 : cols;
            const double compute = static_cast<double>(k) * k * rows * column_steps + kControl.compute;
            for (int map0 = 0; map0 < out_c; map0 += tm) {
                count(e, bias, false);
                const Transfer store = output_tile(output_bytes, std::min(tm, out_c - map0), rows, cols);
                count(e, store, true);
                const double store_cycles = model.write(store) + kControl.store_group;
                e.store_cycles += store_cycles;
                for (int g = 0; g < groups; ++g) {
                    count(e, loads[static_cast<std::size_t>(g)], false);
                    const double job_load = g == 0 ? first_load : load[static_cast<std::size_t>(g)];
                    e.load_cycles += job_load;
                    e.compute_cycles += compute;
                    pipeline.job(job_load, compute, g == 0, g + 1 == groups, store_cycles);
                }
            }
        }
    }
    e.total_cycles = pipeline.end() + model.write_latency() + kControl.command;
    return e;
}

LayerEstimate estimate_pool(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model) {
    LayerEstimate e;
    const int lanes = std::min(o.maxima.tn, o.maxima.tm);
    const std::uint64_t element_bytes = fm_element_bytes(o, c.input_bits);  // == output_bits
    const int out_h = static_cast<int>(c.out_h), out_w = static_cast<int>(c.out_w),
              maps = static_cast<int>(c.in_c);
    const int k = static_cast<int>(c.kernel_size), s = static_cast<int>(c.stride),
              pad = static_cast<int>(c.pad);
    // The conv engine with max for the sum: one tap of every lane a cycle, each job its own map group.
    JobPipeline pipeline;
    for (int row0 = 0; row0 < out_h; row0 += static_cast<int>(c.tile_rows)) {
        const int rows = std::min(static_cast<int>(c.tile_rows), out_h - row0);
        for (int col0 = 0; col0 < out_w; col0 += static_cast<int>(c.tile_cols)) {
            const int cols = std::min(static_cast<int>(c.tile_cols), out_w - col0);
            for (int map0 = 0; map0 < maps; map0 += lanes) {
                TensorPlace place;
                place.plane = static_cast<std::uint64_t>(c.in_h) * c.in_w;
                place.width = c.in_w;
                place.map_offset = c.input_offset + static_cast<std::uint64_t>(map0) * place.plane;
                const Transfer load =
                    input_tile(element_bytes, port_beats(o), place, lanes, maps - map0,
                               static_cast<int>(c.in_h), static_cast<int>(c.in_w), row0 * s - pad,
                               col0 * s - pad, (rows - 1) * s + k, (cols - 1) * s + k);
                const Transfer store = output_tile(element_bytes, std::min(lanes, maps - map0), rows, cols);
                count(e, load, false);
                count(e, store, true);
                const double load_cycles = model.read(load) + kControl.job;
                const double compute = static_cast<double>(k) * k * rows * cols + kControl.compute;
                const double store_cycles = model.write(store) + kControl.store_group;
                e.load_cycles += load_cycles;
                e.store_cycles += store_cycles;
                e.compute_cycles += compute;
                pipeline.job(load_cycles, compute, true, true, store_cycles);
            }
        }
    }
    e.total_cycles = pipeline.end() + model.write_latency() + kControl.command;
    return e;
}

LayerEstimate estimate_reorg(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model) {
    LayerEstimate e;
    const std::uint64_t element_bytes = fm_element_bytes(o, c.input_bits);  // == output_bits
    const std::uint64_t s = c.stride, w = c.in_w, h = c.in_h, segment = c.tile_cols;
    const std::uint64_t channels = c.in_c, oc = channels / std::max<std::uint64_t>(1, s * s);
    const std::uint64_t rows = channels * h;
    const PortBeats port = port_beats(o);
    for (std::uint64_t i0 = 0; i0 < w; i0 += segment) {
        const std::uint64_t n = std::min(segment, w - i0);
        Transfer read, write;
        read.fm_elements = (n - 1) * s + 1;
        read.fm_bytes = element_bytes * read.fm_elements;
        read.fm_bursts = 1;
        write.fm_elements = n;
        write.fm_beats = n;
        write.fm_bytes = element_bytes * n;
        write.fm_bursts = 1;
        // A segment is read whole, then written: nothing overlaps. Its read spans the beats of its
        // source row (reorg_layer.hpp's index), the write one element a cycle.
        double load = 0;
        for (std::uint64_t k = 0; k < channels && oc > 0; ++k) {
            const std::uint64_t offset = k / oc, source_map = k % oc;
            for (std::uint64_t j = 0; j < h; ++j) {
                const std::uint64_t source = c.input_offset +
                                             ((source_map * h * s) + j * s + offset / s) * (w * s) +
                                             offset % s + i0 * s;
                read.fm_beats = port.of(source, read.fm_elements);
                count(e, read, false);
                count(e, write, true);
                load += model.read(read);
            }
        }
        const double per_row_store = model.write(write);
        const double per_row_control = kControl.reorg_segment;
        e.load_cycles += load;
        e.store_cycles += per_row_store * static_cast<double>(rows);
        e.compute_cycles += per_row_control * static_cast<double>(rows);
        e.total_cycles += load + (per_row_control + per_row_store) * static_cast<double>(rows);
    }
    e.total_cycles += model.write_latency() + kControl.command;
    return e;
}

}  // namespace

LayerEstimate estimate_command(const kernel::LayerCommand& command, const PlanOptions& options) {
    const Model model(options);
    LayerEstimate e;
    if (command.op == kernel::kOpConv) {
        e = estimate_conv(command, options, model);
    } else if (command.op == kernel::kOpMaxPool) {
        e = estimate_pool(command, options, model);
    } else if (command.op == kernel::kOpReorg) {
        e = estimate_reorg(command, options, model);
    }
    e.milliseconds = e.total_cycles / (options.clock_mhz * 1e3);
    return e;
}

}  // namespace fpgacnn

// The latency model: walks the kernel's own loops (kernels/src/*_layer.hpp) for one command,
// counting every burst exactly as the native kernel counts it, and charges cycles per step:
//   transfer = max(bytes / port width + bursts * overhead per port, all bytes / DDR bandwidth), the
//              feature-map bytes and bursts spread over the design's read (write) ports
//   conv:    per output-map group, load(0) + sum max(compute, load(next)) + compute, and the store of
//            the previous group overlapped with it (ping-pong on inputs/weights and on outputs)
//   maxpool: load + compare + store per tile (no overlap)
//   reorg:   read + shuffle + write per row segment (no overlap)
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
    std::uint64_t fm_bytes = 0;
    std::uint64_t fm_bursts = 0;
    std::uint64_t param_bytes = 0;
    std::uint64_t param_bursts = 0;
};

/// Elements a feature-map port moves a cycle: its whole bytes over the design's element bytes.
double elements_per_port_cycle(const PlanOptions& o) {
    const int port_bytes = std::max(1, o.port_bits / 8);
    const int element_bytes = o.element_bits / 8;
    return static_cast<double>(port_bytes) / static_cast<double>(element_bytes);
}

class Model {
public:
    explicit Model(const PlanOptions& o)
        : port_bytes_per_cycle_(std::max(1, o.port_bits / 8)),
          port_elements_per_cycle_(elements_per_port_cycle(o)),
          read_ports_(std::max(1, o.fm_read_ports)),
          write_ports_(std::max(1, o.fm_write_ports)),
          ddr_bytes_per_cycle_(o.bandwidth_gbs * 1e9 / (o.clock_mhz * 1e6)),
          overhead_(o.burst_overhead_cycles),
          depth_(o.pipeline_depth) {}

    /// Cycles of one step; `write`: its feature-map bytes go out over the write ports.
    double cycles(const Transfer& t, bool write = false) const {
        const double ports = write ? write_ports_ : read_ports_;
        const double fm = (static_cast<double>(t.fm_elements) / port_elements_per_cycle_ +
                           static_cast<double>(t.fm_bursts) * overhead_) /
                          ports;
        const double params = static_cast<double>(t.param_bytes) / port_bytes_per_cycle_ +
                              static_cast<double>(t.param_bursts) * overhead_;
        const double ddr = static_cast<double>(t.fm_bytes + t.param_bytes) / ddr_bytes_per_cycle_;
        return std::max({fm, params, ddr});
    }
    double depth() const { return depth_; }

private:
    double port_bytes_per_cycle_;
    double port_elements_per_cycle_;
    double read_ports_;
    double write_ports_;
    double ddr_bytes_per_cycle_;
    double overhead_;
    double depth_;
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

/// The bursts of kernel::detail::load_input_tile: one per existing row of each existing map.
Transfer input_tile(std::uint64_t element_bytes, int lanes, int valid_maps, int height, int width,
                    int first_row, int first_col, int rows, int cols) {
    Transfer t;
    const int col_begin = std::max(first_col, 0);
    const int col_end = std::min(first_col + cols, width);
    if (col_end <= col_begin) return t;
    const int row_begin = std::max(first_row, 0);
    const int row_end = std::min(first_row + rows, height);
    const int existing_rows = std::max(0, row_end - row_begin);
    const int maps = std::min(lanes, valid_maps);
    t.fm_bursts = static_cast<std::uint64_t>(maps) * existing_rows;
    t.fm_elements = t.fm_bursts * static_cast<std::uint64_t>(col_end - col_begin);
    t.fm_bytes = t.fm_elements * element_bytes;
    return t;
}

Transfer output_tile(std::uint64_t element_bytes, int maps, int rows, int cols) {
    Transfer t;
    t.fm_bursts = static_cast<std::uint64_t>(maps) * rows;
    t.fm_elements = t.fm_bursts * static_cast<std::uint64_t>(cols);
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
    const std::uint64_t block_bytes =
        element_bytes *
        arith::storage_words(static_cast<uint32_t>(tm * tn * k * k), static_cast<int>(c.weight_bits));
    e.macs = static_cast<std::uint64_t>(out_c) * out_h * out_w * in_c * k * k;

    double pending_store = 0;
    for (int row0 = 0; row0 < out_h; row0 += static_cast<int>(c.tile_rows)) {
        const int rows = std::min(static_cast<int>(c.tile_rows), out_h - row0);
        for (int col0 = 0; col0 < out_w; col0 += static_cast<int>(c.tile_cols)) {
            const int cols = std::min(static_cast<int>(c.tile_cols), out_w - col0);
            const int win_rows = (rows - 1) * s + k, win_cols = (cols - 1) * s + k;
            // The input tile bursts are the same for every output-map group of this tile.
            std::vector<double> load(static_cast<std::size_t>(groups));
            std::vector<Transfer> loads(static_cast<std::size_t>(groups));
            for (int g = 0; g < groups; ++g) {
                Transfer t =
                    input_tile(input_bytes, tn, in_c - g * tn, static_cast<int>(c.in_h),
                               static_cast<int>(c.in_w), row0 * s - pad, col0 * s - pad, win_rows, win_cols);
                t.param_bytes = block_bytes;
                t.param_bursts = 1;
                loads[static_cast<std::size_t>(g)] = t;
                load[static_cast<std::size_t>(g)] = model.cycles(t);
            }
            // Pair mode (8-bit input and weights, in a build that has it): two output columns per
            // multiplier and cycle.
            const bool pairs = o.maxima.int8_pairs && kernel::conv_runs_in_pairs(c);
            const int column_steps = pairs ? (cols + 1) / 2 : cols;
            const double compute = static_cast<double>(k) * k * rows * column_steps + model.depth();
            for (int map0 = 0; map0 < out_c; map0 += tm) {
                Transfer bias;
                bias.param_bytes = element_bytes * static_cast<std::uint64_t>(tm);
                bias.param_bursts = 1;
                count(e, bias, false);
                double group_loop = model.cycles(bias) + load[0];
                for (int g = 0; g < groups; ++g) {
                    count(e, loads[static_cast<std::size_t>(g)], false);
                    e.load_cycles += load[static_cast<std::size_t>(g)];
                    e.compute_cycles += compute;
                    const double next = g + 1 < groups ? load[static_cast<std::size_t>(g) + 1] : 0.0;
                    group_loop += std::max(compute, next);
                }
                const Transfer store = output_tile(output_bytes, std::min(tm, out_c - map0), rows, cols);
                count(e, store, true);
                const double store_cycles = model.cycles(store, true);
                e.store_cycles += store_cycles;
                e.total_cycles += std::max(group_loop, pending_store);
                pending_store = store_cycles;
            }
        }
    }
    e.total_cycles += pending_store;
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
    // K*K taps per output from a dual-port buffer: ceil(K*K / 2) cycles per output pixel.
    const double taps_per_cycle = 2.0;
    for (int row0 = 0; row0 < out_h; row0 += static_cast<int>(c.tile_rows)) {
        const int rows = std::min(static_cast<int>(c.tile_rows), out_h - row0);
        for (int col0 = 0; col0 < out_w; col0 += static_cast<int>(c.tile_cols)) {
            const int cols = std::min(static_cast<int>(c.tile_cols), out_w - col0);
            for (int map0 = 0; map0 < maps; map0 += lanes) {
                const Transfer load = input_tile(element_bytes, lanes, maps - map0, static_cast<int>(c.in_h),
                                                 static_cast<int>(c.in_w), row0 * s - pad, col0 * s - pad,
                                                 (rows - 1) * s + k, (cols - 1) * s + k);
                const Transfer store = output_tile(element_bytes, std::min(lanes, maps - map0), rows, cols);
                count(e, load, false);
                count(e, store, true);
                const double compute = std::ceil(k * k / taps_per_cycle) * rows * cols + model.depth();
                e.load_cycles += model.cycles(load);
                e.store_cycles += model.cycles(store, true);
                e.compute_cycles += compute;
                e.total_cycles += model.cycles(load) + compute + model.cycles(store, true);
            }
        }
    }
    return e;
}

LayerEstimate estimate_reorg(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model) {
    LayerEstimate e;
    const std::uint64_t element_bytes = fm_element_bytes(o, c.input_bits);  // == output_bits
    const std::uint64_t s = c.stride, w = c.in_w, segment = c.tile_cols;
    const std::uint64_t rows = static_cast<std::uint64_t>(c.in_c) * c.in_h;
    for (std::uint64_t i0 = 0; i0 < w; i0 += segment) {
        const std::uint64_t n = std::min(segment, w - i0);
        Transfer read, write;
        read.fm_elements = (n - 1) * s + 1;
        read.fm_bytes = element_bytes * read.fm_elements;
        read.fm_bursts = 1;
        write.fm_elements = n;
        write.fm_bytes = element_bytes * n;
        write.fm_bursts = 1;
        for (std::uint64_t r = 0; r < rows; ++r) {
            count(e, read, false);
            count(e, write, true);
        }
        const double per_row_load = model.cycles(read), per_row_store = model.cycles(write, true);
        const double per_row_compute = static_cast<double>(n) + model.depth();
        e.load_cycles += per_row_load * static_cast<double>(rows);
        e.store_cycles += per_row_store * static_cast<double>(rows);
        e.compute_cycles += per_row_compute * static_cast<double>(rows);
        e.total_cycles += (per_row_load + per_row_compute + per_row_store) * static_cast<double>(rows);
    }
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

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
#include "plan/latency_parts.hpp"

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

using namespace plan_detail;  // NOLINT(google-build-using-namespace): the model's own parts

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

LayerEstimate plan_detail::estimate_command_on(const kernel::LayerCommand& command,
                                               const PlanOptions& options, const Model& model) {
    LayerEstimate e;
    if (command.op == kernel::kOpConv) {
        e = estimate_conv(command, options, model);
    } else if (command.op == kernel::kOpMaxPool) {
        e = estimate_pool(command, options, model);
    } else if (command.op == kernel::kOpReorg) {
        e = estimate_reorg(command, options, model);
    } else if (command.op == kernel::kOpUpsample) {
        e = estimate_upsample(command, options, model);
    } else if (command.op == kernel::kOpShortcut) {
        e = estimate_shortcut(command, options, model);
    }
    return e;
}

LayerEstimate estimate_command(const kernel::LayerCommand& command, const PlanOptions& options) {
    LayerEstimate e = plan_detail::estimate_command_on(command, options, plan_detail::Model(options));
    e.milliseconds = e.total_cycles / (options.clock_mhz * 1e3);
    return e;
}

}  // namespace fpgacnn

// The latency model of contract 7's element-wise ops: the loops of kernels/src/upsample_shortcut_layer.hpp
// walked segment by segment, counting every burst as the native kernel counts it. A segment is read, then
// written through the requantizer one element a cycle (the store's rate, as the conv's store is timed);
// segments do not overlap, as in the RTL twin (kernels/rtl/fpgacnn_core.sv), whose cycles the model is
// held to (tests/rtl_device: within 10 % a layer). The shortcut's two reads are one stream of two bursts
// on one read master when a and b have one width, and run side by side on the 16-bit and the byte-wide
// master when they do not. The control cycles are the reorg's.
#include <algorithm>

#include "fpgacnn/plan.hpp"
#include "plan/latency_parts.hpp"

namespace fpgacnn::plan_detail {

namespace {

/// One read burst of `elements` of a tensor at `bits` from element `first`.
Transfer segment_read(const PlanOptions& o, std::uint32_t bits, std::uint64_t first, std::uint64_t elements) {
    Transfer t;
    t.fm_elements = elements;
    t.fm_beats = port_beats(o).of(first, elements);
    t.fm_bytes = fm_element_bytes(o, bits) * elements;
    t.fm_bursts = 1;
    return t;
}

/// One write burst of `elements` at `bits` (the store's rate: one element a cycle).
Transfer segment_write(const PlanOptions& o, std::uint32_t bits, std::uint64_t elements) {
    Transfer t;
    t.fm_elements = elements;
    t.fm_beats = elements;
    t.fm_bytes = fm_element_bytes(o, bits) * elements;
    t.fm_bursts = 1;
    return t;
}

/// One segment column's cycles over `rows` rows: its reads (`load`), the control of each segment and its
/// writes (`store`), one after the other.
void add_segments(LayerEstimate& e, double load, double store, std::uint64_t rows) {
    const double compute = kControl.reorg_segment * static_cast<double>(rows);
    e.load_cycles += load;
    e.store_cycles += store;
    e.compute_cycles += compute;
    e.total_cycles += load + compute + store;
}

}  // namespace

LayerEstimate estimate_upsample(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model) {
    LayerEstimate e;
    const std::uint64_t s = std::max<std::uint32_t>(1, c.stride),
                        segment = std::max<std::uint32_t>(1, c.tile_cols);
    const std::uint64_t rows = static_cast<std::uint64_t>(c.in_c) * c.in_h;  // input rows, each read once
    for (std::uint64_t x0 = 0; x0 < c.out_w; x0 += segment) {
        const std::uint64_t n = std::min<std::uint64_t>(segment, c.out_w - x0);
        const std::uint64_t first = x0 / s, span = (x0 + n - 1) / s - first + 1;
        const Transfer write = segment_write(o, c.output_bits, n);
        double load = 0;
        for (std::uint64_t row = 0; row < rows; ++row) {
            const Transfer read = segment_read(o, c.input_bits, c.input_offset + row * c.in_w + first, span);
            count(e, read, false);
            for (std::uint64_t r = 0; r < s; ++r) count(e, write, true);
            load += model.read(read);
        }
        add_segments(e, load, static_cast<double>(s) * model.write(write) * static_cast<double>(rows), rows);
    }
    e.total_cycles += model.write_latency() + kControl.command;
    return e;
}

LayerEstimate estimate_shortcut(const kernel::LayerCommand& c, const PlanOptions& o, const Model& model) {
    LayerEstimate e;
    const std::uint64_t segment = std::max<std::uint32_t>(1, c.tile_cols);
    const std::uint64_t rows = static_cast<std::uint64_t>(c.in_c) * c.in_h;
    e.macs = rows * c.in_w;  // one addition a value
    for (std::uint64_t x0 = 0; x0 < c.in_w; x0 += segment) {
        const std::uint64_t n = std::min<std::uint64_t>(segment, c.in_w - x0);
        const Transfer write = segment_write(o, c.output_bits, n);
        double load = 0;
        for (std::uint64_t row = 0; row < rows; ++row) {
            const std::uint64_t at = row * c.in_w + x0;
            const Transfer a = segment_read(o, c.input_bits, c.input_offset + at, n);
            const Transfer b =
                segment_read(o, c.weight_bits, c.error_offset + at, n);  // `from`, at its width
            count(e, a, false);
            count(e, b, false);
            count(e, write, true);
            if (c.input_bits == c.weight_bits) {
                Transfer both = a;  // one stream of two bursts on the read master
                both.fm_elements += b.fm_elements;
                both.fm_beats += b.fm_beats;
                both.fm_bytes += b.fm_bytes;
                both.fm_bursts += b.fm_bursts;
                load += model.read(both);
            } else {
                Transfer bytes;  // two masters at once, sharing the DDR
                bytes.fm_bytes = a.fm_bytes + b.fm_bytes;
                load += std::max({model.read(a), model.read(b), model.read(bytes)});
            }
        }
        add_segments(e, load, model.write(write) * static_cast<double>(rows), rows);
    }
    e.total_cycles += model.write_latency() + kControl.command;
    return e;
}

}  // namespace fpgacnn::plan_detail

// The human-readable per-layer table of a plan (fpgacnn-plan).
#include <fmt/format.h>

#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/plan.hpp"

namespace fpgacnn {

namespace {

std::string shape_text(const TensorShape& s) { return fmt::format("{}x{}x{}", s.w, s.h, s.c); }

std::string layer_text(const LayerPlan& lp) {
    const kernel::LayerCommand& c = lp.command;
    switch (lp.type) {
        case LayerType::Convolutional: {
            // on_host too: a logistic conv, its command linear and the logistic a host step after it.
            const char* activation = lp.on_host                           ? " logistic@host"
                                     : c.leaky == arith::kActivationLeaky ? " leaky"
                                     : c.leaky == arith::kActivationRelu  ? " relu"
                                                                          : "";
            // A [connected] layer is a 1x1 conv over its flattened input (the input column says so).
            if (lp.connected) return fmt::format("connected{}", activation);
            return fmt::format("conv {}x{}/{}{}", c.kernel_size, c.kernel_size, c.stride, activation);
        }
        case LayerType::MaxPool:
            return fmt::format("max {}x{}/{}", c.kernel_size, c.kernel_size, c.stride);
        case LayerType::Reorg:
            return fmt::format("reorg /{}", c.stride);
        case LayerType::Route:
            return lp.on_host ? "route (copy)" : "route";
        case LayerType::Unsupported:
            return "not run";
        default:  // the layers without a command: their cfg section's name
            return layer_type_name(lp.type);
    }
}

double megabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / 1e6; }

}  // namespace

std::string format_plan_table(const NetworkPlan& plan) {
    const PlanOptions& o = plan.options;
    std::string out = fmt::format(
        "kernel Tm={} Tn={} Tr={} Tc={} (max window {}, stride {}), {:.0f} MHz, {:.2f} GB/s DDR, {}-bit "
        "ports\n",
        o.maxima.tm, o.maxima.tn, o.maxima.tr, o.maxima.tc, o.maxima.max_kernel, o.maxima.max_stride,
        o.clock_mhz, o.bandwidth_gbs, o.port_bits);
    out += fmt::format(
        "{:>3} {:<15} {:>13} {:>13} {:>9} {:>7} {:>9} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>8}\n", "#",
        "layer", "input", "output", "tile", "tiles", "MMAC", "in MB", "w MB", "out MB", "compute", "load",
        "store", "ms");
    for (const LayerPlan& lp : plan.layers) {
        if (!lp.on_device) {
            // Host layers run on the CPU between commands; routes are placement, region/yolo the host's.
            const bool identity = lp.type == LayerType::Dropout || lp.type == LayerType::Cost;
            const char* how = lp.type == LayerType::Unsupported ? "host layer, not run by fpgacnn"
                              : lp.on_host                      ? "host layer, CPU int16"
                              : lp.type == LayerType::Route     ? "placement"
                              : identity                        ? "identity at inference"
                                                                : "host layer, float after dequantization";
            out += fmt::format("{:>3} {:<15} {:>13} {:>13}   (no command: {} at arena byte {}, {}-bit)\n",
                               lp.index, layer_text(lp), "", shape_text(lp.output_shape), how,
                               lp.output.byte_offset(), lp.output.bits);
            continue;
        }
        const LayerEstimate& e = lp.estimate;
        const double cycles_to_ms = 1.0 / (o.clock_mhz * 1e3);
        out += fmt::format(
            "{:>3} {:<15} {:>13} {:>13} {:>9} {:>7} {:>9.1f} {:>8.2f} {:>8.2f} {:>8.2f} {:>9.2f} "
            "{:>9.2f} {:>9.2f} {:>8.2f}\n",
            lp.index, layer_text(lp), shape_text(lp.input_shape), shape_text(lp.output_shape),
            fmt::format("{}x{}", lp.tile_rows, lp.tile_cols), lp.row_tiles * lp.col_tiles,
            static_cast<double>(e.macs) / 1e6, megabytes(e.fm_read_bytes), megabytes(e.param_read_bytes),
            megabytes(e.fm_write_bytes), e.compute_cycles * cycles_to_ms, e.load_cycles * cycles_to_ms,
            e.store_cycles * cycles_to_ms, e.milliseconds);
    }
    const LayerEstimate& t = plan.total;
    const double gop = 2.0 * static_cast<double>(t.macs) / 1e9;
    out += fmt::format(
        "total: {:.2f} GOP, {:.1f} MB read ({:.1f} MB feature maps, {:.1f} MB parameters), "
        "{:.1f} MB written, {:.1f} ms/frame, {:.2f} GOP/s\n",
        gop, megabytes(t.fm_read_bytes + t.param_read_bytes), megabytes(t.fm_read_bytes),
        megabytes(t.param_read_bytes), megabytes(t.fm_write_bytes), t.milliseconds,
        t.milliseconds > 0 ? gop / (t.milliseconds / 1e3) : 0.0);
    out += fmt::format("arena: {:.2f} MB with buffer reuse ({:.2f} MB without), parameters {:.2f} MB\n",
                       2.0 * static_cast<double>(plan.arena_elements) / 1e6,
                       2.0 * static_cast<double>(plan.arena_elements_no_reuse) / 1e6,
                       2.0 * static_cast<double>(plan.parameter_words) / 1e6);
    return out;
}

}  // namespace fpgacnn

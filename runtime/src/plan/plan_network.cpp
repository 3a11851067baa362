// plan_network: arena placement, tiles, parameter offsets, commands and estimates per layer.
#include <algorithm>
#include <limits>
#include <string>

#include "core/carried_widths.hpp"
#include "fpgacnn/error.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/plan.hpp"
#include "int16/activation_code.hpp"
#include "plan/arena_layout.hpp"

namespace fpgacnn {

namespace {

using plan_detail::describe_layer;

void check_options(const PlanOptions& o) {
    const KernelMaxima& m = o.maxima;
    if (m.tm < 1 || m.tn < 1 || m.tr < 1 || m.tc < 1 || m.max_kernel < 1 || m.max_stride < 1) {
        throw Error("plan: kernel maxima must be positive (Tm=" + std::to_string(m.tm) +
                    " Tn=" + std::to_string(m.tn) + " Tr=" + std::to_string(m.tr) +
                    " Tc=" + std::to_string(m.tc) + ")");
    }
    if (!(o.clock_mhz > 0) || !(o.bandwidth_gbs > 0) || o.port_bits < 8 || o.burst_overhead_cycles < 0 ||
        o.fm_read_ports < 1 || o.fm_write_ports < 1 || o.element_bits < 8 || o.element_bits % 8 != 0 ||
        o.read_latency_cycles < 0 || o.outstanding_reads < 1 || o.write_latency_cycles < 0) {
        throw Error(
            "plan: clock (MHz), bandwidth (GB/s), port width (>= 8 bits), port counts (>= 1), element "
            "width (whole bytes) and reads in flight (>= 1) must be positive, latencies and burst overhead "
            "not negative");
    }
}

// What only the kernel build cannot do (the CPU backends can) is a DeviceError: --fallback cpu
// runs such a network on the CPU. What is wrong with the network itself is an Error.
void check_extent(const Layer& layer, const TensorShape& shape) {
    if (shape.h > kernel::kMaxDimension || shape.w > kernel::kMaxDimension ||
        shape.c > kernel::kMaxChannels || shape.size() == 0) {
        throw DeviceError(describe_layer(layer) + ": shape " + std::to_string(shape.c) + "x" +
                          std::to_string(shape.h) + "x" + std::to_string(shape.w) +
                          " is outside the kernel's limits (" + std::to_string(kernel::kMaxChannels) +
                          " channels, " + std::to_string(kernel::kMaxDimension) + " rows/columns)");
    }
}

void check_window(const Layer& layer, int size, int stride, const KernelMaxima& m) {
    if (size > m.max_kernel || stride > m.max_stride || size < 1 || stride < 1) {
        throw DeviceError(
            describe_layer(layer) + ": window " + std::to_string(size) + "x" + std::to_string(size) +
            " stride " + std::to_string(stride) + " does not fit the kernel build (max window " +
            std::to_string(m.max_kernel) + ", max stride " + std::to_string(m.max_stride) +
            "); rebuild the kernel with larger FPGACNN_MAX_K / FPGACNN_MAX_S or use --device cpu");
    }
}

kernel::LayerCommand base_command(const Layer& layer, const ArenaRange& input, const ArenaRange& output) {
    kernel::LayerCommand c{};
    c.input_offset = static_cast<uint32_t>(input.offset);
    c.output_offset = static_cast<uint32_t>(output.offset);
    c.in_c = static_cast<uint32_t>(layer.input.c);
    c.in_h = static_cast<uint32_t>(layer.input.h);
    c.in_w = static_cast<uint32_t>(layer.input.w);
    c.out_c = static_cast<uint32_t>(layer.output.c);
    c.out_h = static_cast<uint32_t>(layer.output.h);
    c.out_w = static_cast<uint32_t>(layer.output.w);
    c.output_bits = static_cast<uint32_t>(output.bits);  // the planned widths (PlanOptions::output_bits)
    c.weight_bits = arith::kDataBits;                    // conv layers: plan_conv sets the planned width
    c.input_bits = static_cast<uint32_t>(input.bits);
    return c;
}

void plan_window_layer(const Layer& layer, int size, int stride, int pad, const KernelMaxima& m,
                       LayerPlan& lp) {
    check_window(layer, size, stride, m);
    if (pad < 0 || pad >= size) {
        throw Error(describe_layer(layer) + ": padding " + std::to_string(pad) + " must be in 0.." +
                    std::to_string(size - 1) + " for the kernel");
    }
    const TileSplit rows = balanced_tiles(layer.output.h, m.tr), cols = balanced_tiles(layer.output.w, m.tc);
    lp.tile_rows = rows.tile, lp.row_tiles = rows.tiles;
    lp.tile_cols = cols.tile, lp.col_tiles = cols.tiles;
    lp.input_tile_rows = (lp.tile_rows - 1) * stride + size;
    lp.input_tile_cols = (lp.tile_cols - 1) * stride + size;
    lp.command.kernel_size = static_cast<uint32_t>(size);
    lp.command.stride = static_cast<uint32_t>(stride);
    lp.command.pad = static_cast<uint32_t>(pad);
    lp.command.tile_rows = static_cast<uint32_t>(lp.tile_rows);
    lp.command.tile_cols = static_cast<uint32_t>(lp.tile_cols);
}

/// PlanOptions::weight_bits / ::output_bits at `index` (16 where the list ends), checked.
int planned_width(const std::vector<int>& widths, const Layer& layer, const std::size_t index,
                  const char* what) {
    const int bits = index < widths.size() ? widths[index] : arith::kDataBits;
    if (!arith::is_storage_width(bits)) {
        throw Error(describe_layer(layer) + ": " + what + " width " + std::to_string(bits) +
                    " bits is neither " + std::to_string(arith::kDataBits) + " nor " +
                    std::to_string(arith::kNarrowBits));
    }
    return bits;
}

/// The storage width of every layer's output: a conv layer's from PlanOptions::output_bits (checked),
/// the others carried (core::carried_output_bits; the arena layout refuses a route whose inputs differ).
std::vector<int> planned_output_bits(const Network& network, const PlanOptions& options) {
    std::vector<int> conv_bits(network.layers.size(), arith::kDataBits);
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        if (layer.type == LayerType::Convolutional)
            conv_bits[i] = planned_width(options.output_bits, layer, i, "output");
    }
    return core::carried_output_bits(network, conv_bits);
}

void plan_conv(const Layer& layer, const KernelMaxima& m, int weight_bits, std::size_t& params_end,
               std::size_t alignment, LayerPlan& lp) {
    const ConvParams& conv = layer.conv();
    lp.command.op = kernel::kOpConv;
    lp.command.leaky = int16_detail::conv_fixed_point_activation(conv.activation, describe_layer(layer));
    plan_window_layer(layer, conv.size, conv.stride, conv.pad, m, lp);
    if (kernel::conv_output_extent(lp.command.in_h, conv.size, conv.stride, conv.pad) != lp.command.out_h ||
        kernel::conv_output_extent(lp.command.in_w, conv.size, conv.stride, conv.pad) != lp.command.out_w) {
        throw Error(describe_layer(layer) +
                    ": output shape does not follow (in + 2 pad - size) / stride + 1");
    }
    lp.map_groups = (layer.output.c + m.tm - 1) / m.tm;
    lp.input_groups = (layer.input.c + m.tn - 1) / m.tn;
    lp.weight_offset = params_end;
    lp.command.weight_bits = static_cast<uint32_t>(weight_bits);
    lp.weight_words =
        kernel::reordered_weight_words(lp.command.out_c, lp.command.in_c, lp.command.kernel_size,
                                       static_cast<uint32_t>(m.tm), static_cast<uint32_t>(m.tn), weight_bits);
    lp.bias_offset = align_up(lp.weight_offset + lp.weight_words, alignment);
    lp.bias_elements = kernel::padded_bias_elements(lp.command.out_c, static_cast<uint32_t>(m.tm));
    params_end = align_up(lp.bias_offset + lp.bias_elements, alignment);
    lp.command.weight_offset = static_cast<uint32_t>(lp.weight_offset);
    lp.command.bias_offset = static_cast<uint32_t>(lp.bias_offset);
}

void plan_maxpool(const Layer& layer, const KernelMaxima& m, LayerPlan& lp) {
    const MaxPoolParams& pool = layer.maxpool();
    lp.command.op = kernel::kOpMaxPool;
    if (layer.output.c != layer.input.c)
        throw Error(describe_layer(layer) + ": maxpool must keep the channel count");
    plan_window_layer(layer, pool.size, pool.stride, pool.padding / 2, m, lp);
    const int lanes = std::min(m.tn, m.tm);
    lp.map_groups = (layer.output.c + lanes - 1) / lanes;
    lp.input_groups = lp.map_groups;
}

void plan_reorg(const Layer& layer, const KernelMaxima& m, LayerPlan& lp) {
    const int s = layer.reorg().stride;
    lp.command.op = kernel::kOpReorg;
    check_window(layer, 1, s, m);
    if (layer.input.c % (s * s) != 0 || layer.input.h % s != 0 || layer.input.w % s != 0 ||
        layer.output.size() != layer.input.size()) {
        throw Error(describe_layer(layer) + ": reorg stride " + std::to_string(s) +
                    " needs channels divisible by stride^2 and height/width divisible by the stride");
    }
    lp.command.stride = static_cast<uint32_t>(s);
    const TileSplit segments = balanced_tiles(layer.input.w, m.tc);
    lp.tile_cols = segments.tile;
    lp.tile_rows = 1;
    lp.row_tiles = layer.input.c * layer.input.h;
    lp.col_tiles = segments.tiles;
    lp.command.tile_rows = 1;
    lp.command.tile_cols = static_cast<uint32_t>(lp.tile_cols);
}

/// Whether the kernel build runs this upsample or shortcut layer (contract 7's ops): the build has them,
/// an upsample's stride fits, a shortcut adds a tensor of its own shape with a fixed-point activation
/// (darknet's other overlaps stay on the host: the op adds tensors of one shape only).
bool kernel_runs_elementwise(const Network& network, const Layer& layer, const KernelMaxima& m) {
    if (!m.upsample_shortcut) return false;
    if (layer.type == LayerType::Upsample) {
        const int s = layer.upsample().stride;
        return s >= 1 && s <= m.max_stride;
    }
    if (layer.type != LayerType::Shortcut) return false;
    const ShortcutParams& p = layer.shortcut();
    const Activation a = p.activation;
    return p.from >= 0 && static_cast<std::size_t>(p.from) < network.layers.size() &&
           network.layers[static_cast<std::size_t>(p.from)].output == layer.output &&
           layer.input == layer.output &&
           (a == Activation::Linear || a == Activation::Leaky || a == Activation::Relu);
}

/// Row segments of at most Tc elements for the element-wise ops (reorg's tiling: tile_rows 1).
void plan_segments(int extent, int segment, int rows, LayerPlan& lp) {
    lp.tile_cols = segment;
    lp.tile_rows = 1;
    lp.row_tiles = rows;
    lp.col_tiles = (extent + segment - 1) / segment;
    lp.command.kernel_size = 1;
    lp.command.tile_rows = 1;
    lp.command.tile_cols = static_cast<uint32_t>(segment);
}

void plan_upsample(const Layer& layer, LayerPlan& lp) {
    const int s = layer.upsample().stride;
    lp.command.op = kernel::kOpUpsample;
    lp.command.stride = static_cast<uint32_t>(s);
    // Output segments of whole input pixels (a multiple of the stride): each input value is read once.
    const int segment = balanced_tiles(layer.input.w, kernel::kMaxElementwiseSegment / s).tile * s;
    plan_segments(layer.output.w, segment, layer.input.c * layer.input.h, lp);
}

void plan_shortcut(const Layer& layer, const ArenaRange& added, LayerPlan& lp) {
    lp.command.op = kernel::kOpShortcut;
    lp.command.stride = 1;
    lp.command.leaky =
        int16_detail::fixed_point_activation(layer.shortcut().activation, describe_layer(layer));
    lp.command.error_offset = static_cast<uint32_t>(added.offset);  // the `from` tensor, at its own width
    lp.command.weight_bits = static_cast<uint32_t>(added.bits);
    plan_segments(layer.output.w, balanced_tiles(layer.output.w, kernel::kMaxElementwiseSegment).tile,
                  layer.output.c * layer.output.h, lp);
}

}  // namespace

TileSplit balanced_tiles(int extent, int maximum) {
    TileSplit split;
    split.tiles = (extent + maximum - 1) / maximum;
    split.tile = (extent + split.tiles - 1) / split.tiles;
    return split;
}

std::vector<int> conv_weight_bits(const QuantizedNetwork& network) {
    std::vector<int> bits(network.layers.size(), arith::kDataBits);
    for (std::size_t i = 0; i < network.layers.size() && i < network.network.layers.size(); ++i) {
        if (network.network.layers[i].type == LayerType::Convolutional)
            bits[i] = network.layers[i].weight_bits;
    }
    return bits;
}

std::vector<int> layer_input_bits(const QuantizedNetwork& network) {
    std::vector<int> bits(network.layers.size(), arith::kNetworkInputBits);
    for (std::size_t i = 1; i < network.layers.size(); ++i) bits[i] = network.layers[i - 1].output_bits;
    return bits;
}

std::vector<int> layer_output_bits(const QuantizedNetwork& network) {
    std::vector<int> bits(network.layers.size(), arith::kDataBits);
    for (std::size_t i = 0; i < network.layers.size(); ++i) bits[i] = network.layers[i].output_bits;
    return bits;
}

void plan_widths_of(const QuantizedNetwork& network, PlanOptions& options) {
    options.weight_bits = conv_weight_bits(network);
    options.output_bits = layer_output_bits(network);
}

NetworkPlan plan_network(const Network& network, const PlanOptions& options) {
    check_options(options);
    const std::size_t alignment = static_cast<std::size_t>(std::max(1, options.alignment_elements));
    const plan_detail::ArenaLayout layout =
        plan_detail::place_tensors(network, alignment, planned_output_bits(network, options));

    NetworkPlan plan;
    plan.options = options;
    plan.input_shape = network.input;
    plan.input = layout.input;
    plan.output = layout.outputs.back();
    plan.arena_elements = layout.elements;
    plan.arena_elements_no_reuse = layout.elements_without_reuse;
    std::size_t params_end = 0;
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const Layer& layer = network.layers[i];
        LayerPlan lp;
        lp.index = static_cast<int>(i);
        lp.type = layer.type;
        lp.input_shape = layer.input;
        lp.output_shape = layer.output;
        lp.output = layout.outputs[i];
        const bool elementwise = kernel_runs_elementwise(network, layer, options.maxima);
        lp.connected = layer.type == LayerType::Convolutional && layer.conv().connected;
        lp.on_device = layer.type == LayerType::Convolutional || layer.type == LayerType::MaxPool ||
                       layer.type == LayerType::Reorg || elementwise;
        // Host layers: the CPU engine's int16 code between the device's commands (DeviceQueue), reading
        // and writing their tensors in the arena; the kernel build has no command for them (upsample and
        // shortcut: a build without contract 7's ops, or a shortcut of two shapes; avgpool, crop; a logistic
        // conv's activation).
        lp.on_host =
            ((layer.type == LayerType::Upsample || layer.type == LayerType::Shortcut) && !elementwise) ||
            (layer.type == LayerType::Route && layer.route().groups != 1) || layout.host_routes[i] ||
            layer.type == LayerType::Unsupported || layer.type == LayerType::AvgPool ||
            layer.type == LayerType::Crop || int16_detail::has_host_logistic(layer);
        if (lp.on_host) lp.input = i == 0 ? layout.input : layout.outputs[i - 1];
        if (lp.on_device) {
            const TensorShape& produced = i == 0 ? network.input : network.layers[i - 1].output;
            if (!layer.reads(produced)) {
                throw Error(describe_layer(layer) + ": its input shape differs from what " +
                            (i == 0 ? std::string("the network input") : "layer " + std::to_string(i - 1)) +
                            " produces; the network IR is inconsistent");
            }
            check_extent(layer, layer.input);
            check_extent(layer, layer.output);
            lp.input = i == 0 ? layout.input : layout.outputs[i - 1];
            lp.command = base_command(layer, lp.input, lp.output);
            if (layer.type == LayerType::Convolutional) {
                plan_conv(layer, options.maxima, planned_width(options.weight_bits, layer, i, "weight"),
                          params_end, alignment, lp);
            } else if (layer.type == LayerType::MaxPool) {
                plan_maxpool(layer, options.maxima, lp);
            } else if (layer.type == LayerType::Upsample) {
                plan_upsample(layer, lp);
            } else if (layer.type == LayerType::Shortcut) {
                plan_shortcut(layer, layout.outputs[static_cast<std::size_t>(layer.shortcut().from)], lp);
            } else {
                plan_reorg(layer, options.maxima, lp);
            }
            lp.estimate = estimate_command(lp.command, options);
            plan.total += lp.estimate;
        }
        plan.layers.push_back(lp);
    }
    plan.parameter_words = params_end;
    const std::size_t limit = std::numeric_limits<uint32_t>::max();
    // 8-bit tensors count bytes: their offsets reach twice the arena's words.
    if (2 * plan.arena_elements > limit || plan.parameter_words > limit) {
        throw DeviceError(network.cfg_path + ": the feature-map arena (" +
                          std::to_string(plan.arena_elements) + " values) or the parameters (" +
                          std::to_string(plan.parameter_words) +
                          ") exceed the kernel's 32-bit element offsets; use a smaller --input size");
    }
    return plan;
}

}  // namespace fpgacnn

// Planning a network for the accelerator (docs/kernel.md): per layer the tiles and loop counts, one
// DMA arena for every feature map (route layers cost nothing: producers write straight into their
// channel slice of the concatenation; dead buffers are reused), the parameter buffer with weights
// re-ordered into (Tm, Tn) blocks, the kernel command, and an estimate of bytes moved and latency
// (compute / load / store with ping-pong overlap, the model of Chen et al. 2019).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fpgacnn/export.hpp"
#include "fpgacnn/kernel/config.hpp"
#include "fpgacnn/kernel/contract.hpp"
#include "fpgacnn/kernel/layer_command.hpp"
#include "fpgacnn/network.hpp"
#include "fpgacnn/quantized.hpp"

namespace fpgacnn {

/// The accelerator build a plan targets: the kernel's own Maxima (kernel/config.hpp; default: the
/// reference build). The maxima the native kernel (emu device) was compiled with are
/// kernel::native_build_maxima().
using KernelMaxima = kernel::Maxima;

/// What a plan assumes about the accelerator build and the memory system it runs on. Defaults: the
/// reference kernel build on the Zedboard (150 MHz, its HP port's latencies).
struct FPGACNN_API PlanOptions {
    KernelMaxima maxima;  ///< the kernel build's tile sizes and limits (layers that exceed them are refused)
    double clock_mhz = 150.0;          ///< kernel clock
    double bandwidth_gbs = 4.2;        ///< DDR bandwidth shared by the AXI masters, GB/s
    int port_bits = arith::kDataBits;  ///< data width of each AXI master (the kernel's ports carry int16)
    /// The port arrangement of a design: feature-map read / write ports working in parallel, each
    /// port_bits wide (this kernel: one each; Chen et al. 2019: four read and two write ports).
    int fm_read_ports = 1;   ///< feature-map read ports
    int fm_write_ports = 1;  ///< feature-map write ports
    /// Bits of one tensor element as moved by the design: the kernel's int16, or 32 for estimates of
    /// float32 designs (Zhang et al. 2015, fpgacnn-plan --explore --precision float32).
    int element_bits = arith::kDataBits;
    /// The memory the masters see (the rtl device's memory models, drivers.md): cycles from a read
    /// burst's address to its first beat, read bursts a master keeps in flight, cycles from a write
    /// burst's last beat to its response. The defaults are the Zedboard's HP port (mem=zedboard).
    int read_latency_cycles = 30;   ///< kernel cycles from a read burst's address to its first beat
    int outstanding_reads = 8;      ///< read bursts in flight per master
    int write_latency_cycles = 20;  ///< kernel cycles from a write burst's last beat to its response
    /// Cycles each burst costs on top of its beats and the latency: 0 for this kernel, whose RTL issues
    /// bursts back to back (measured, docs/kernel.md "The latency model"); a design that waits for each
    /// burst (Chen et al. 2019) is outstanding_reads = 1 and, there, a round trip of 48 cycles.
    int burst_overhead_cycles = 0;
    int alignment_elements = 32;  ///< arena / parameter offsets are multiples of this (64 bytes)
    /// Storage width of each conv layer's weights, by network layer index (QuantizedLayer::weight_bits;
    /// conv_weight_bits() reads them from a quantized network). Empty, or a layer past its end: 16.
    /// 8-bit weights take half the parameter words and traffic (arith::kNarrowWeightsPerWord).
    std::vector<int> weight_bits;
    /// Storage width of each conv layer's output, by network layer index (QuantizedLayer::output_bits;
    /// layer_output_bits() reads them from a quantized network). Empty, or a layer past its end: 16.
    /// Maxpool, reorg, route and region layers carry their input's width whatever this says. An 8-bit
    /// tensor takes one byte per element in the arena and on the kernel's byte-wide ports (half the DDR
    /// space and traffic, arith::fm_element_bytes). A conv layer whose input (its producer's output)
    /// and weights are both 8-bit runs in the kernel's pair mode, two output columns per multiplier
    /// (kernel::conv_runs_in_pairs): half its compute cycles, in a build that has the mode
    /// (maxima.int8_pairs); the same cycles as 16-bit in one that has not.
    std::vector<int> output_bits;
};

/// The conv layers' weight widths of a quantized network, for PlanOptions::weight_bits.
FPGACNN_API std::vector<int> conv_weight_bits(const QuantizedNetwork& network);

/// Every layer's input width in a quantized network (the network input's for layer 0, else the
/// previous layer's output width): what the plan's commands carry as input_bits.
FPGACNN_API std::vector<int> layer_input_bits(const QuantizedNetwork& network);

/// Every layer's output width in a quantized network, for PlanOptions::output_bits.
FPGACNN_API std::vector<int> layer_output_bits(const QuantizedNetwork& network);

/// PlanOptions::weight_bits and PlanOptions::output_bits of a quantized network: what a plan of it needs.
FPGACNN_API void plan_widths_of(const QuantizedNetwork& network, PlanOptions& options);

/// Tiles of one extent: equal tiles no larger than `maximum` (40 rows with Tr = 26 become 2 x 20,
/// not 26 + 14, so the input halo and the loop bounds stay even).
struct FPGACNN_API TileSplit {
    int tile = 0;   ///< rows (columns) per tile
    int tiles = 0;  ///< number of tiles
};
/// Splits `extent` (> 0) into the fewest tiles of at most `maximum` (> 0), all of equal size but the
/// last, which may be smaller.
FPGACNN_API TileSplit balanced_tiles(int extent, int maximum);

/// `value` rounded up to a multiple of `alignment` (> 0): arena, parameter and input-slot offsets.
constexpr std::size_t align_up(std::size_t value, std::size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

/// A tensor's place in the feature-map arena, in elements of its storage width from the arena base
/// (16-bit words, or bytes for an 8-bit tensor: arith::fm_element_bytes), as the kernel's commands
/// count them.
struct FPGACNN_API ArenaRange {
    std::size_t offset = 0;       ///< first element, counted from the arena base
    std::size_t elements = 0;     ///< tensor elements (c * h * w)
    int bits = arith::kDataBits;  ///< storage width of the elements: 16 or 8
    /// One past the last element, in elements.
    std::size_t end() const { return offset + elements; }
    /// offset in bytes from the arena base.
    std::size_t byte_offset() const { return offset * arith::fm_element_bytes(bits); }
    /// Size in bytes.
    std::size_t bytes() const { return elements * arith::fm_element_bytes(bits); }
    /// One past the last byte, from the arena base.
    std::size_t byte_end() const { return byte_offset() + bytes(); }
};

/// Bytes, bursts and cycles of one layer as the kernel executes it.
struct FPGACNN_API LayerEstimate {
    std::uint64_t macs = 0;  ///< multiply-accumulates (conv), comparisons (maxpool) or additions (shortcut)
    std::uint64_t fm_read_bytes = 0;      ///< feature-map bytes read from DDR (input tiles with halo)
    std::uint64_t fm_read_bursts = 0;     ///< AXI read bursts of those bytes
    std::uint64_t fm_write_bytes = 0;     ///< feature-map bytes written to DDR (output tiles)
    std::uint64_t fm_write_bursts = 0;    ///< AXI write bursts of those bytes
    std::uint64_t param_read_bytes = 0;   ///< weight and bias bytes read from DDR
    std::uint64_t param_read_bursts = 0;  ///< AXI read bursts of those bytes
    double compute_cycles = 0;            ///< MAC / compare pipeline busy
    double load_cycles = 0;               ///< input tiles + weights (overlapped with compute by ping-pong)
    double store_cycles = 0;              ///< output tiles (overlapped with the next group's compute)
    double total_cycles = 0;              ///< with the overlap
    double milliseconds = 0;              ///< total_cycles at PlanOptions::clock_mhz
    /// Adds every field of `o` (a network's total is the sum of its layers').
    LayerEstimate& operator+=(const LayerEstimate& o);
};

/// How one network layer runs: on the device (its command, tiling and parameter offsets), on the host
/// between commands, or not at all (a route written in place by its producers, the region on the host
/// after the last command); where its tensors live in the arena, and its estimate.
struct FPGACNN_API LayerPlan {
    int index = 0;                              ///< the network layer (Layer::index)
    LayerType type = LayerType::Convolutional;  ///< the network layer's type
    /// conv, maxpool, reorg, and upsample / shortcut where the build has the ops (Maxima::upsample_shortcut)
    /// and the layer fits them; route and region cost no command
    bool on_device = false;
    /// Runs on the host between device commands (route with groups, avgpool, crop; upsample and shortcut
    /// the build cannot run): the CPU int16 engine's code on the arena's tensors (DeviceQueue); fpgacnn-plan
    /// lists it as a host layer. With on_device, a conv with activation=logistic: its command runs linear,
    /// then the host passes its output through the logistic in place (docs/arithmetic.md, "Activations in
    /// fixed point").
    bool on_host = false;
    /// A darknet [connected] layer (ConvParams::connected): a 1x1 conv over its flattened input.
    bool connected = false;
    TensorShape input_shape;   ///< the layer's input (Layer::input)
    TensorShape output_shape;  ///< the layer's output (Layer::output)
    ArenaRange input;          ///< device layers: the input tensor (for routes: unused)
    ArenaRange output;         ///< every layer: where its output lives (routes: the concatenation)
    /// Tiling of device layers: output rows per tile (<= Tr).
    int tile_rows = 0;
    int tile_cols = 0;        ///< output columns per tile (<= Tc)
    int row_tiles = 0;        ///< tiles down the output
    int col_tiles = 0;        ///< tiles across the output
    int map_groups = 0;       ///< ceil(M / Tm) (maxpool: ceil(C / min(Tn, Tm)))
    int input_groups = 0;     ///< ceil(N / Tn)
    int input_tile_rows = 0;  ///< with halo: (tile_rows - 1) * S + K
    int input_tile_cols = 0;  ///< with halo: (tile_cols - 1) * S + K
    /// Conv parameters in the parameter buffer (16-bit words).
    std::size_t weight_offset = 0;
    std::size_t weight_words = 0;   ///< re-ordered, zero-padded to whole blocks, at the layer's weight_bits
    std::size_t bias_offset = 0;    ///< first bias word in the parameter buffer
    std::size_t bias_elements = 0;  ///< padded to a multiple of Tm
    /// The kernel command; bias_shift / output_shift are 0 until with_exponents() fills them. The widths
    /// are the planned ones (PlanOptions::weight_bits / PlanOptions::output_bits): the weight offsets and the
    /// arena ranges depend on them.
    kernel::LayerCommand command{};
    LayerEstimate estimate;  ///< bytes, bursts and time of the command (zero for layers with none)
};

/// A network laid out for one kernel build (plan_network()): every layer's plan, the arena and the
/// parameter buffer sizes, and the estimate summed. A plain value, read-only once made.
struct FPGACNN_API NetworkPlan {
    PlanOptions options;             ///< as planned with
    TensorShape input_shape;         ///< the network input (c x h x w)
    ArenaRange input;                ///< where the host writes the quantized image
    ArenaRange output;               ///< the last layer's output (the region layer's input for YOLOv2)
    std::vector<LayerPlan> layers;   ///< one per network layer, in order
    std::size_t arena_elements = 0;  ///< 16-bit words of the arena, with reuse (8-bit tensors two per word)
    std::size_t arena_elements_no_reuse = 0;  ///< every tensor in its own buffer (for reports)
    std::size_t parameter_words = 0;          ///< 16-bit words: weights (8-bit ones two per word) and biases
    LayerEstimate total;                      ///< every layer's estimate summed
};

/// Plans a network (shapes only: no weights needed). Throws DeviceError naming the layer when a layer
/// does not fit the kernel build (window, stride, sizes), Error when the network is inconsistent or a
/// route cannot be placed.
FPGACNN_API NetworkPlan plan_network(const Network& network, const PlanOptions& options);

/// The command of every device layer with the exponents of a quantized network filled in
/// (bias_shift = Qw + Qin - Qb, output_shift = Qw + Qin - Qout; maxpool / reorg: Qin - Qout). Throws
/// Error naming the layer when a shift is outside arith::kExact*Shift, or when a width of the network
/// (a conv layer's weights, a layer's input or output) differs from the width the plan was made for
/// (plan_widths_of).
FPGACNN_API std::vector<kernel::LayerCommand> with_exponents(const NetworkPlan& plan,
                                                             const QuantizedNetwork& network);

/// The parameter buffer: every conv layer's re-ordered weights (8-bit layers two per word,
/// kernel::store_weight_blocks) and padded biases at the plan's offsets, zeros elsewhere, written
/// into `destination` (plan.parameter_words words, e.g. a device buffer's
/// host mapping). One layer's parameters are in host memory at a time (ResidentLayer). `written`, when
/// set, is called with each finished range [first, first + count) in order (a layer's weights, biases
/// and the padding before them; the ranges cover the buffer), so a caller can sync and release it.
using ParametersWritten = std::function<void(std::size_t first, std::size_t count)>;
/// Writes the parameter buffer described above. Throws Error when `network` does not match the plan
/// (layer count, a conv layer's weight or bias count, its weight width, an 8-bit weight out of range).
FPGACNN_API void write_parameters(const NetworkPlan& plan, const QuantizedNetwork& network,
                                  int16_t* destination, const ParametersWritten& written = {});
/// write_parameters into a new vector.
FPGACNN_API std::vector<int16_t> pack_parameters(const NetworkPlan& plan, const QuantizedNetwork& network);

/// darknet-order weights [M][N][K][K] -> the kernel's (Tm, Tn) block layout, and back.
FPGACNN_API std::vector<int16_t> reorder_weights(const std::vector<int16_t>& darknet_order, int out_c,
                                                 int in_c, int size, int tm, int tn);
/// The inverse of reorder_weights: the kernel's block layout back to darknet order (tests, dumps).
FPGACNN_API std::vector<int16_t> restore_weights(const std::vector<int16_t>& reordered, int out_c, int in_c,
                                                 int size, int tm, int tn);

/// Bytes / bursts / cycles of one command, following the kernel's loops exactly.
FPGACNN_API LayerEstimate estimate_command(const kernel::LayerCommand& command, const PlanOptions& options);

/// The per-layer table fpgacnn-plan prints.
FPGACNN_API std::string format_plan_table(const NetworkPlan& plan);

}  // namespace fpgacnn

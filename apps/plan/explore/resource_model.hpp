// Resource model of the accelerator kernel (kernels/src): DSP slices, BRAM_18K, LUT and FF as
// functions of the build's maxima, data type and AXI ports, calibrated on two published designs
// (Chen, Chai, Xia 2019 on the Zedboard; Zhang et al. FPGA'15 on the VC707; docs/tools/fpgacnn-plan.md).
#pragma once

#include <string>
#include <vector>

#include "fpgacnn/kernel/config.hpp"

namespace fpgacnn::explore {

enum class DataType { Int16, Float32 };
const char* data_type_name(DataType type);
/// "int16" | "float32"; throws Error naming the accepted values otherwise.
DataType parse_data_type(const std::string& text);
int data_bits(DataType type);

/// How a design holds its maxpool tiles: in buffers of its own (this kernel: pool_layer.hpp declares
/// them), in the convolution's buffers (the published Zedboard design), or not at all (Zhang's design
/// computes convolutions only).
enum class PoolBuffers { Separate, SharedWithConv, None };

/// One group of AXI master ports of the same width and burst length.
struct PortGroup {
    int count = 1;
    int bits = 16;
    int max_burst = 256;  // beats (HLS max_read_burst_length / max_write_burst_length; HLS default 16)
};

/// Everything the resource model needs to know about one design.
struct DesignShape {
    kernel::Maxima maxima;
    DataType type = DataType::Int16;
    PoolBuffers pool = PoolBuffers::Separate;
    bool reorg_lines = true;  // the reorg's two line buffers (reorg_layer.hpp)
    // The pair mode of 8-bit layers (conv_layer.hpp conv_compute_pairs): the same DSPs, each
    // splitting one packed product into two MACs; costs a second adder tree per lane, the split, and
    // an accumulator tile divided by column parity.
    bool int8_pairs = false;
    std::vector<PortGroup> ports;
    // Elements a beat of the word-wide ports carries into the on-chip buffers a cycle
    // (kernel::Maxima::port_bits / 16; 1 for 16-bit ports and for other designs): the input lanes
    // are banked that many ways and each weight lane picks its element from a beat (port_width_cost).
    int beat_elements = 1;
    // The RTL twin (kernels/rtl) instead of an HLS design: its buffers (both ping-pong banks of an
    // input lane in one memory, a second copy of it for the pair mode's second read port, maxpool in
    // the convolution's buffers, reorg in input lane 0, the AXI queues in LUTRAM) and its DSP, LUT and
    // FF terms measured with yosys (docs/kernel.md "Model against yosys").
    bool rtl = false;
    // Contract 7's upsample and shortcut ops (kernels/src/upsample_shortcut_layer.hpp,
    // kernel::Maxima::upsample_shortcut): their line buffers and the shortcut's 48-bit datapath
    // (upsample_shortcut_cost).
    bool upsample_shortcut = false;
};

/// This project's kernel at `maxima`: three AXI masters (fm_read, fm_write, params) of `port_bits`,
/// bursts of up to 256 beats, and (int16, when maxima.int8_pairs) the pair mode of 8-bit layers. An
/// int16 kernel is costed as its RTL twin (`rtl`: the terms measured with yosys); a float32 one as an
/// HLS design (kernels/src: separate maxpool buffers, reorg line buffers, m_axi data FIFOs; the terms
/// fitted on the published designs).
DesignShape this_kernel(const kernel::Maxima& maxima, DataType type, int port_bits);

struct Resources {
    int dsp = 0;
    int bram_18k = 0;
    int lut = 0;
    int ff = 0;
};

/// Block RAMs (18 Kb) of one memory of depth x width bits: the cheapest BRAM18 aspect ratio
/// (16K x 1 ... 512 x 36); memories of at most kLutRamBits go to LUTRAM / registers (0 BRAM).
int bram18_for(long long depth, int width_bits);
inline constexpr long long kLutRamBits = 1024;

/// Multipliers (Tm x Tn) of a build and the DSP slices one multiply-add costs for a data type.
int dsp_per_mac(DataType type);

/// Width of a DSP slice's pre-adder / A port ("DSP48E1": 25, "DSP48E2": 27; 0 for a kind the model
/// does not know) and whether the pair mode's packed operand (arith::kPairOperandBits) fits it, i.e.
/// whether one DSP computes two 8-bit MACs.
int dsp_preadder_bits(const std::string& dsp_kind);
bool dsp_takes_pairs(const std::string& dsp_kind);

Resources estimate_resources(const DesignShape& design);

/// What the upsample and shortcut ops add to a build (DesignShape::upsample_shortcut): three line buffers
/// of kernel::kMaxElementwiseSegment elements (BRAM), the shortcut's operand alignment (two shifters to
/// 48 bits), 48-bit adder, leaky product (48 x 15 bits: two DSP48 slices) and the round-shift and
/// saturation of its 64-bit sum (LUTs), the segment counters and addresses. Estimated from the datapath's
/// widths, not yet measured (the RTL twin has no such ops; docs/kernel.md "Upsample and shortcut").
Resources upsample_shortcut_cost(const DesignShape& design);

/// A published design the model was calibrated on, with what its authors report.
struct PublishedDesign {
    std::string name;
    DesignShape shape;
    Resources reported;
    bool lut_ff_reported = true;
};
std::vector<PublishedDesign> published_designs();

}  // namespace fpgacnn::explore
